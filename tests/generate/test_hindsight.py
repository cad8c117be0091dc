"""Labeling in hindsight without a browser: the oracle reads URLs with the sites' own code, so
a trajectory made of URLs (and the state each page publishes) is enough to label, verify and
prune exactly as `webtraj explore` does."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

import pytest

from factories import SANDBOX_TODAY
from webtraj.agents.explore.prune import Pruner
from webtraj.dom.tree_text import parse_tree
from webtraj.generate.hindsight import label_trajectory, labeled_task, prefix_ends, verify
from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step, Trajectory
from webtraj.sites.hindsight import hindsight_constraints
from webtraj.sites.inventory import build_inventory
from webtraj.sites.oracle import Oracle
from webtraj.sites.registry import make_sites

TODAY = dt.date.fromisoformat(SANDBOX_TODAY)
BASE = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle(make_sites(build_inventory(0), TODAY), {"hotels": BASE})


def _search(**extra: object) -> str:
    start = TODAY + dt.timedelta(days=40)
    q = {"destination": "Lisbon", "checkin": start.isoformat(),
         "checkout": (start + dt.timedelta(days=3)).isoformat(), "adults": "2",
         "children": "0", "rooms": "1", **extra}
    return f"{BASE}/search?{urlencode(q, doseq=True)}"


def _hotel_with_pool(oracle: Oracle) -> str:
    inv = oracle.sites["hotels"].inv
    return next(h.id for h in inv.hotels if h.city == "lisbon" and "pool" in h.amenities
                and h.stars >= 4)


def _obs(oracle: Oracle, url: str) -> Observation:
    """The page as the browser records it: the sites publish their state as JSON-LD."""
    state = oracle.observe(url)
    return Observation(url=url, axtree="[1] [button] [Search]",
                       structured_data=(state.model_dump(mode="json"),))


def _trajectory(oracle: Oracle, urls: list[str]) -> Trajectory:
    click = Action(kind=ActionKind.CLICK, target=ElementTarget(role="button", name="Search"))
    steps = [Step(index=i, observation=_obs(oracle, u), action=click)
             for i, u in enumerate(urls[:-1])]
    return Trajectory(trajectory_id="explore.hotels.0-0000__explore-persona__t0",
                      task=Task(task_id="explore.hotels.0-0000", intent="Explore",
                                site="hotels", start_url=BASE + "/"),
                      agent="explore-persona", steps=tuple(steps),
                      final_observation=_obs(oracle, urls[-1]))


def test_a_search_is_labeled_by_what_was_chosen_not_by_defaults(oracle):
    found = hindsight_constraints([oracle.observe(_search(stars="4", amenity="pool"))])
    values = {c.name: c.value for c in found}
    assert values["location"] == "Lisbon" and values["min_stars"] == 4
    assert values["pool"] is True
    # Left at the form's defaults, or not a choice: not asked for.
    assert not {"adults", "children", "rooms", "sort", "breakfast", "made_selection"} & set(
        values)
    assert hindsight_constraints([oracle.observe(BASE + "/")]) is None


def test_a_listing_keeps_the_searchs_filters_it_meets(oracle):
    hotel = _hotel_with_pool(oracle)
    search = _search(stars="4", amenity="pool", adults="3")
    listing = f"{BASE}/hotel/{hotel}?" + search.split("?", 1)[1]
    found = hindsight_constraints([oracle.observe(search), oracle.observe(listing)])
    values = {c.name: c.value for c in found}
    assert values["made_selection"] is True and values["pool"] is True
    assert values["min_stars"] == 4 and values["adults"] == 3
    assert "hotel" not in values  # the listing's own name is not asked for


def test_labels_are_new_sub_tasks_checked_by_oracle_and_rule_judge(oracle):
    hotel = _hotel_with_pool(oracle)
    search = _search(stars="4")
    urls = [BASE + "/", search, search, _search(stars="4", amenity="pool"),
            f"{BASE}/hotel/{hotel}?" + search.split("?", 1)[1]]
    traj = _trajectory(oracle, urls)
    labels = label_trajectory(traj, oracle, interval=1)
    # Prefix 2 repeats prefix 1's sub-task: not labeled again.
    assert [lb.prefix for lb in labels] == [1, 3, 4]
    assert all(lb.rejected is None for lb in labels), labels
    task = labeled_task(labels[-1], traj, "Find a hotel.", labeler="rule")
    assert task.difficulty is not None and task.reference_actions[-1].kind == "stop"
    assert len(task.reference_actions) == 5 and task.metadata["hindsight"]["prefix"] == 4
    # Checked, not assumed: a constraint the page does not meet is caught.
    wrong = task.model_copy(update={"constraints": (
        *task.constraints[:-1], task.constraints[-1].model_copy(update={"value": False}))})
    assert "unmet" in verify(wrong, oracle, traj.final_observation)


def test_prefix_ends_every_interval_and_the_end():
    assert prefix_ends(7, 3) == [3, 6, 7]
    assert prefix_ends(6, 3) == [3, 6]
    assert prefix_ends(0, 3) == []


def test_pruner_stops_after_patience_checks_without_a_new_sub_task(oracle):
    pruner = Pruner(interval=1, patience=2)
    home, search = _obs(oracle, BASE + "/"), _obs(oracle, _search())
    decisions = []
    for step, obs in enumerate([home, home, home, search, search, search]):
        pruner.observe(obs)
        decisions.append(pruner.should_stop(step))
    # Before any sub-task (the form being filled) nothing is pruned; after the search, two
    # checks that name it again stop the episode.
    assert decisions == [False, False, False, False, False, True]


def test_suggestions_beside_a_field_are_not_a_drop_downs_options():
    from webtraj.agents.explore.page import popup_options, select_options

    tree = ("[14] [search] [Search]\n\t[17] [combobox] [Pick-up location] [expanded]\n"
            "\t[53] [listbox] [Pick-up locations]\n\t\t[54] [option] [Paris (CDG)]\n"
            "\t[21] [combobox] [Pick-up time]\n\t\t[] [option] [06:00]\n"
            "\t\t[30] [option] [06:30]\n")
    els = [e for e in parse_tree(tree) if e.id]
    assert [e.name for e in popup_options(els)] == ["Paris (CDG)"]
    time_field = next(e for e in els if e.name == "Pick-up time")
    assert select_options(time_field, parse_tree(tree)) == ["06:00", "06:30"]
