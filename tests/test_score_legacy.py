"""One form of per-step constraint checks: `Score.step_checks`. The older
`details.step_matching` is a stored form only, read where stored score records are loaded."""

from __future__ import annotations

import sqlite3

import orjson

from factories import make_trajectory
from webtraj.model import Score
from webtraj.store import RunStore


def test_step_matching_is_read_only_from_stored_records(tmp_path):
    """The older per-step form (`details.step_matching`) is a stored form only: a score built
    in code keeps such a detail as the evaluator wrote it, and the run index reads a stored
    one as step checks (and writes only step checks)."""
    rows = [{"a": False, "b": None}, {"a": True, "b": True}]
    made = Score(evaluator="constraints:rule", value=1.0, details={"step_matching": rows})
    assert made.step_checks is None and made.details["step_matching"] == rows
    root = tmp_path / "run"
    with RunStore.create(root) as store:
        traj = make_trajectory(n_steps=1)
        store.add_trajectory(traj)
        store.add_scores([(traj.trajectory_id, Score(evaluator="constraints:rule", value=1.0,
                                                     step_values=(0.0, 1.0)))])
    old_body = {"evaluator": "constraints:rule", "value": 1.0,
                "details": {"step_matching": rows, "kept": 1}}
    with sqlite3.connect(root / "index.sqlite") as conn:
        conn.execute("UPDATE score_sets SET body = ?", (orjson.dumps(old_body).decode(),))
    with RunStore.open(root) as store:
        [score] = store.scores(traj.trajectory_id)
    assert [[(c.name, c.matching) for c in row] for row in score.step_checks] == [
        [("a", False), ("b", None)], [("a", True), ("b", True)]]
    assert score.details == {"kept": 1} and score.step_values == (0.0, 1.0)
