"""WebArena's task rule, in one place (`evaluate.trajectory_scoring.task_score`), as the
report uses it."""

from __future__ import annotations

import pytest

from webtraj.evaluate.trajectory_scoring import task_score


@pytest.mark.parametrize(("values", "expected"), [
    ([], None),                # nothing scored: unknown, never 0
    ([1.0, None], None),       # one evaluator could not decide: the task is unknown
    ([1.0, 1.0], 1.0),
    ([1.0, 0.5], 0.0),         # a partial CSR is not a pass
    ([0.0], 0.0),
])
def test_a_task_passes_only_if_every_evaluator_does(values, expected):
    assert task_score(values) == expected


def test_the_report_outcomes_use_the_rule(tmp_path):
    from factories import make_trajectory
    from webtraj.model import Score
    from webtraj.report.outcomes import outcomes
    from webtraj.store import RunStore

    with RunStore.create(tmp_path / "run") as store:
        trajs = [make_trajectory(task_id=f"t{i}", n_steps=1) for i in range(3)]
        for t in trajs:
            store.add_trajectory(t)
        store.add_scores([
            (trajs[0].trajectory_id, Score(evaluator="a", value=1.0)),
            (trajs[0].trajectory_id, Score(evaluator="b", value=1.0)),
            (trajs[1].trajectory_id, Score(evaluator="a", value=1.0)),
            (trajs[1].trajectory_id, Score(evaluator="b", value=0.5)),
            (trajs[2].trajectory_id, Score(evaluator="a", value=1.0)),
            (trajs[2].trajectory_id, Score.unscored("b", "page unreadable")),
        ])
        got = {o.task_id: o.task_score for o in outcomes(store)}
    assert got == {"t0": 1.0, "t1": 0.0, "t2": None}
