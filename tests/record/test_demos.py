"""From recordings to tasks and Mind2Web data without a browser, the CLI's refusals, and
`webtraj run --tasks FILE` serving the sandbox sites its tasks name."""

from __future__ import annotations

import datetime as dt

from typer.testing import CliRunner

from factories import SANDBOX_TODAY
from webtraj.cli.app import app
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model import Observation, RunInfo, Step, Task, Termination, Trajectory
from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.run import SandboxInfo
from webtraj.report.outcomes import outcomes
from webtraj.sites.tasks import booking_suite
from webtraj.store import RunStore

TREE = "[1] [RootWebArea] [Demo]\n\t[4] [combobox] [Where to?]\n\t[6] [button] [Search]"


def _demo(task_id: str, termination: Termination, trial: int = 0) -> Trajectory:
    task = Task(task_id=task_id, intent="Find Paris", site="hotels",
                start_url="http://127.0.0.1:8761/", metadata={"suite": "booking"})
    obs = Observation(url="http://127.0.0.1:8761/", axtree=TREE)
    actions = [Action(kind=ActionKind.TYPE, element_id="4", value="Paris", press_enter=True,
                      target=ElementTarget(role="combobox", name="Where to?")),
               Action(kind=ActionKind.CLICK, element_id="6",
                      target=ElementTarget(role="button", name="Search"))]
    if termination is Termination.STOP:
        actions.append(Action(kind=ActionKind.STOP, value="done"))
    steps = tuple(Step(index=i, observation=obs, action=a) for i, a in enumerate(actions))
    return Trajectory(trajectory_id=Trajectory.make_id(task_id, "human", trial), task=task,
                      agent="human", trial=trial, steps=steps, termination=termination,
                      error=None if termination is Termination.STOP else "gave up")


def _said(res) -> str:
    """The command's output with Rich's line wrapping undone."""
    return " ".join(res.output.split())


def _run(tmp_path) -> str:
    info = RunInfo(name="demos", sandbox=SandboxInfo(today=dt.date(2026, 1, 15), seed=3))
    with RunStore.create(tmp_path / "demos", info) as store:
        store.add_trajectory(_demo("t.done", Termination.STOP))
        store.add_trajectory(_demo("t.gave-up", Termination.ERROR))
    return str(tmp_path / "demos")


def test_from_demos_keeps_targets_site_and_sandbox(tmp_path):
    out = tmp_path / "tasks.jsonl"
    res = CliRunner().invoke(app, ["tasks", "from-demos", _run(tmp_path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "t.gave-up" in _said(res) and "not an answer" in _said(res)
    (task,) = [Task.model_validate_json(x) for x in out.read_text().splitlines()]
    assert task.task_id == "t.done" and task.site == "hotels"
    assert task.metadata["sandbox"] == {"suite": "booking", "today": "2026-01-15", "seed": 3}
    refs = task.reference_actions
    assert [(a.kind, a.element_id, a.target and a.target.name, a.value) for a in refs] == [
        (ActionKind.TYPE, None, "Where to?", "Paris"), (ActionKind.CLICK, None, "Search", None),
        (ActionKind.STOP, None, None, "done")]


def test_export_mind2web_writes_candidates_and_predictions(tmp_path):
    import orjson

    out = tmp_path / "m2w"
    res = CliRunner().invoke(app, ["export", "mind2web", _run(tmp_path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    tasks = orjson.loads((out / "tasks.json").read_bytes())
    assert [t["annotation_id"] for t in tasks] == ["t.done__human__t0", "t.gave-up__human__t0"]
    ops = [(a["operation"]["op"], a["operation"]["original_op"], a["operation"]["value"],
            a["pos_candidates"][0]["backend_node_id"]) for a in tasks[0]["actions"]]
    assert ops == [("TYPE", "TYPE", "Paris", "4"), ("CLICK", "ENTER", "", "4"),
                   ("CLICK", "CLICK", "", "6")]
    assert tasks[0]["action_reprs"][0] == "[combobox]  Where to? -> TYPE: Paris"
    negs = {c["backend_node_id"] for c in tasks[0]["actions"][0]["neg_candidates"]}
    assert negs == {"6"}
    preds = (out / "recorded_predictions.jsonl").read_text().splitlines()
    assert len(preds) == 6 and '"element":"4"' in preds[0]
    assert "stop 1" in _said(res) and "without --html" in _said(res)


def test_cli_refuses_bad_recording_requests(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["record", "--suite", "booking", "--url", "http://a.test/",
                              "--intent", "x", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "exactly one of --suite, --tasks or --url" in _said(res)
    res = runner.invoke(app, ["record", "--url", "ftp://a.test/", "--intent", "x",
                              "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--url must be an http(s) URL" in _said(res)
    res = runner.invoke(app, ["record", "--url", "http://a.test/", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--url and --intent go together" in _said(res)
    with RunStore.create(tmp_path / "empty", RunInfo(name="empty")):
        pass
    res = runner.invoke(app, ["tasks", "from-demos", str(tmp_path / "empty"), "--out",
                              str(tmp_path / "t.jsonl")])
    assert res.exit_code == 2 and "no finished recording" in _said(res)


def test_run_tasks_file_serves_the_sandbox_sites_it_names(tmp_path):
    (task,) = [t for t in booking_suite(dt.date.fromisoformat(SANDBOX_TODAY))
               if t.task_id == "booking.cars.01"]
    # Written by another session on other ports, with the date it was made for.
    moved = task.model_copy(update={
        "start_url": "http://127.0.0.1:1/",
        "metadata": {**task.metadata, "sandbox": {"today": SANDBOX_TODAY, "seed": 0}}})
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(moved.to_json_bytes(indent=False) + b"\n")
    with execute_run(RunConfig(tasks_file=str(path), agent="replay"), tmp_path / "run") as st:
        assert st.info.sandbox.today.isoformat() == SANDBOX_TODAY
        (outcome,) = outcomes(st)
        traj = st.load_trajectory(outcome.trajectory_id)
    assert outcome.error is None and outcome.csr == 1.0, outcome.scores
    assert traj.task.start_url == st.info.site_urls["cars"].rstrip("/") + "/"
