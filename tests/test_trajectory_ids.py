"""Trajectory ids are injective and file-name safe whatever the task id, agent and trial:
a property test over ids of any script and length, plus the cases the issue found."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from webtraj.model import Trajectory

# Task ids and agent names as people write them: plain ones, separators, other scripts,
# unusual lengths; the alphabet is small so that near-collisions are common.
_PIECES = st.sampled_from(["a", "b", "_", "__", "-", ".", "/", " ", "酒店", "飯店", ":", "x" * 97])
_NAMES = st.lists(_PIECES, min_size=1, max_size=6).map("".join)
_TRIPLES = st.tuples(_NAMES, _NAMES, st.integers(min_value=0, max_value=10**12))


@settings(max_examples=200, deadline=None)
@given(st.lists(_TRIPLES, min_size=2, max_size=12, unique=True))
def test_distinct_triples_give_distinct_safe_ids(triples):
    ids = [Trajectory.make_id(*t) for t in triples]
    assert len(set(ids)) == len(ids)
    for tid in ids:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._\-]*", tid)  # never a hidden file
        assert len(tid.encode()) <= 180  # room for temporary and scratch names around it


def test_the_ids_the_issue_found_colliding_are_distinct_and_readable():
    ids = {t: Trajectory.make_id(t, "heuristic", 0)
           for t in ("酒店-paris", "飯店-paris", "hotels/paris", "hotels_paris")}
    assert len(set(ids.values())) == 4
    assert ids["hotels_paris"] == "hotels_paris__heuristic__t0"  # plain ids stay as they are
    assert ids["hotels/paris"].startswith("hotels_paris__heuristic__t0-")
    assert ids["酒店-paris"].startswith("paris__heuristic__t0-")
    # A task id that reads like another triple's id does not take its place.
    assert Trajectory.make_id("a__b", "c", 0) != Trajectory.make_id("a", "b__c", 0)
    assert Trajectory.make_id("x" * 260, "a", 0) != Trajectory.make_id("x" * 259 + "y", "a", 0)
