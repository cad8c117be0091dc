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


def test_judge_usage_is_a_typed_field_and_read_from_older_records(tmp_path):
    """A judge's model use is `Score.usage`, stored and read as such; a score stored before
    that field (`details.llm_usage`, the run-usage form) reads the same, in the score and in
    the run's per-trajectory judge usage."""
    from webtraj.model.usage import ModelUsage, Usage
    from webtraj.report.usage import judge_usage
    from webtraj.store.queries import IndexReader

    used = Usage(models={"judge-model": ModelUsage(calls=2, prompt_tokens=40,
                                                   completion_tokens=6)})
    root = tmp_path / "run"
    with RunStore.create(root) as store:
        traj = make_trajectory(n_steps=1)
        store.add_trajectory(traj)
        store.add_scores([(traj.trajectory_id, Score(evaluator="constraints:llm", value=1.0,
                                                     details={"kept": 1}, usage=used))])
    with RunStore.open(root) as store:
        [score] = store.scores(traj.trajectory_id)
    assert score.usage == used and score.details == {"kept": 1}
    with IndexReader.open(root) as index:
        typed = judge_usage(index)
    assert typed == {traj.trajectory_id: {"constraints:llm": used.total}}

    old_body = {"evaluator": "constraints:llm", "value": 1.0,
                "details": {"kept": 1, "llm_usage": used.to_run_usage()}}
    with sqlite3.connect(root / "index.sqlite") as conn:
        conn.execute("UPDATE score_sets SET body = ?", (orjson.dumps(old_body).decode(),))
    with RunStore.open(root) as store:
        [score] = store.scores(traj.trajectory_id)
    assert score.usage == used and score.details == {"kept": 1}
    with IndexReader.open(root) as index:
        assert judge_usage(index) == typed
