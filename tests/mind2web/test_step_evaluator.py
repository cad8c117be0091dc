"""The `mind2web` evaluator through the CLI: an imported Mind2Web run carries its gold steps,
`eval --run` stores each task's step metrics (typed details), and every summary shows the
family's metrics (element accuracy, operation F1, step SR, task SR) with n and errors apart.
An agent's run of the same tasks is scored the way the reference scorer
(`step_metrics.score_steps`, checked bit for bit against Mind2Web's code elsewhere) does."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.evaluate.mind2web.evaluator import Mind2WebTaskScore
from webtraj.evaluate.mind2web.step_metrics import score_steps
from webtraj.formats.mind2web import load_steps
from webtraj.formats.mind2web.predictions import StepPrediction
from webtraj.formats.mind2web.synthetic import synthetic_tasks, write_raw_json
from webtraj.model import Action, ActionKind, RunInfo
from webtraj.store import RunStore

runner = CliRunner()
KEYS = ("element_acc", "op_f1", "step_sr", "task_sr")


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _mind2web_row(run) -> dict:
    show = orjson.loads(_cli("runs", "show", str(run), "--json"))
    rows = [r for r in show["metrics"]["rows"] if r["family"] == "mind2web"]
    assert len(rows) == 1, show["metrics"]
    return rows[0]


def test_imported_fixture_scored_on_every_summary(real_step_path, tmp_path):
    run = tmp_path / "runs" / "m2w"
    _cli("import", "mind2web", str(real_step_path), "--out", str(run))
    out = _cli("eval", "--run", str(run))
    assert "element acc 1.000" in out and "task SR 1.000" in out
    row = _mind2web_row(run)
    assert (row["scored"], row["unscored"], row["errors"]) == (1, 0, 0)
    assert {m["key"]: (m["value"], m["n"]) for m in row["metrics"]} == {
        k: (1.0, 1) for k in KEYS}
    with RunStore.open(run) as store:
        (tid,) = store.index.trajectory_ids()
        (score,) = store.scores(tid, evaluator="mind2web")
    details = Mind2WebTaskScore.model_validate(score.details)
    (step,) = details.step_scores
    # The annotated target of the SeeAct step: the Search button, ranked 2.
    assert (step.pred_element, step.best_rank, step.ref_action) == ("8635", 2, "CLICK ")
    listed = runner.invoke(app, ["runs", "list", str(run.parent)], env={"COLUMNS": "200"})
    assert "mind2web: element acc 1.00 (n=1) · op F1 1.00 (n=1)" in listed.output
    assert "element acc" in (run / "report.html").read_text()


def _edit(steps, task_index: int, actions: list[Action]) -> tuple[list[Action], list]:
    """An agent's actions for one task (some wrong) and the same as Mind2Web predictions."""
    out, preds = [], []
    for i, (s, a) in enumerate(zip(steps, actions, strict=True)):
        if task_index == 0 and i == 0:  # a wrong element
            a = a.model_copy(update={"element_id": "999999"})
        if task_index == 1 and a.kind == ActionKind.TYPE:  # half the typed words right
            a = a.model_copy(update={"value": f"{a.value} extra"})
        if task_index == 2 and i == len(steps) - 1:  # stops one step early
            break
        out.append(a)
        op = {"click": "CLICK", "type": "TYPE", "select": "SELECT"}[a.kind.value]
        preds.append(StepPrediction(annotation_id=s.annotation_id, action_uid=s.action_uid,
                                    element=a.element_id, op=op, value=a.value or ""))
    return out, preds


def test_agent_run_scored_like_the_reference_scorer(tmp_path):
    tasks = list(synthetic_tasks(4, seed=11, mean_elements=60))
    write_raw_json(tmp_path / "data", tasks)
    steps = load_steps(tmp_path / "data")
    ref = tmp_path / "runs" / "ref"
    _cli("import", "mind2web", str(tmp_path / "data"), "--out", str(ref))
    agent = tmp_path / "runs" / "agent"
    predictions = []
    with RunStore.open(ref) as src, RunStore.create(agent, RunInfo(name="agent")) as dst:
        for n, t in enumerate(sorted(src.iter_trajectories(), key=lambda t: t.task.task_id)):
            task_steps = [s for s in steps if s.annotation_id == t.task.task_id]
            task_steps.sort(key=lambda s: len(s.previous_actions))
            actions, preds = _edit(task_steps, n, [s.action for s in t.steps])
            predictions += preds
            dst.add_trajectory(t.model_copy(update={
                "agent": "agent", "trajectory_id": f"{t.task.task_id}__agent",
                "steps": tuple(s.model_copy(update={"action": a})
                               for s, a in zip(t.steps, actions, strict=False))}))
    _cli("eval", "--run", str(agent))
    expected = score_steps(steps, predictions)
    assert expected.task_sr < 1 and expected.element_acc < 1 and expected.op_f1 < 1
    row = _mind2web_row(agent)
    got = {m["key"]: m for m in row["metrics"]}
    for key in KEYS:
        assert got[key]["value"] == pytest.approx(getattr(expected, key), abs=1e-12), key
        assert got[key]["n"] == expected.n_tasks
    assert row["errors"] == 0
