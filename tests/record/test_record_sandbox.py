"""`webtraj record` on the sandbox sites, done by a scripted person with real mouse and
keyboard input over CDP: the recorded actions are what was done (kind, target, value, on the
element ids of the observation before each), the recordings are scored by the oracle, and
they become replayable tasks and Mind2Web data that score like the recording."""

from __future__ import annotations

import orjson
import pytest
from sandbox_demos import plan, record_tasks, run_cli, suite_tasks

from webtraj.dom.tree_text import parse_tree
from webtraj.model.action import ActionKind
from webtraj.model.task import Task
from webtraj.report.outcomes import outcomes
from webtraj.store import RunStore

# One task per site, through the combobox, the calendar, the steppers, selects and filters.
ALL_SITES = ("booking.hotels.06", "booking.rentals.09", "booking.flights.14",
             "booking.transit.09", "booking.cars.08")


def _check_recording(store: RunStore, tasks: list[Task]) -> None:
    by_task = {o.task_id: o for o in outcomes(store)}
    for task in tasks:
        outcome = by_task[task.task_id]
        assert outcome.error is None, outcome
        assert outcome.csr == 1.0, (task.task_id, outcome.scores)
        traj = store.load_trajectory(outcome.trajectory_id)
        assert traj.agent == "human" and traj.termination == "stop"
        done = plan(task)
        recorded = [s for s in traj.steps if s.action.kind is not ActionKind.STOP]
        assert [s.action.kind for s in recorded] == [a.kind for a in done], task.task_id
        for step, want in zip(recorded, done, strict=True):
            got = step.action
            assert step.error is None, (task.task_id, step.index, step.error)
            assert got.target.role == want.target.role, (task.task_id, got, want)
            if want.target.exact:
                assert got.target.name == want.target.name, (task.task_id, got, want)
            else:
                assert got.target.name.startswith(want.target.name), (task.task_id, got)
            assert got.value == want.value, (task.task_id, got, want)
            # The id names that element in the observation taken before the action.
            el = {e.id: e for e in parse_tree(step.observation.axtree)}[got.element_id]
            assert (el.role, el.name) == (got.target.role, got.target.name)
            assert step.observation.screenshot and step.timings.agent is not None
        assert traj.steps[-1].action.kind is ActionKind.STOP
        folder = store.trajectory_dir(traj.trajectory_id)
        assert (folder / "network.har").exists()
        assert all((folder / s.observation.screenshot).exists() for s in traj.steps)


def _replay_and_export(tmp_path, run_dir, tasks: list[Task]) -> None:
    demo_file = tmp_path / "demo-tasks.jsonl"
    res = run_cli("tasks", "from-demos", str(run_dir), "--out", str(demo_file))
    assert res.returncode == 0, res.stderr
    demo = [Task.model_validate_json(line) for line in demo_file.read_text().splitlines()]
    assert sorted(t.task_id for t in demo) == sorted(t.task_id for t in tasks)
    assert all(t.site and t.metadata["sandbox"]["today"] for t in demo)

    # Replaying the recorded actions (the run serves the sites the file names).
    replay = tmp_path / "replay"
    res = run_cli("run", "--tasks", str(demo_file), "--agent", "replay", "--workers", "2",
                  "--out", str(replay))
    assert res.returncode == 0, res.stderr
    with RunStore.open(replay) as store:
        assert store.info.sandbox is not None
        got = {o.task_id: o for o in outcomes(store)}
    assert {k: (o.error, o.csr) for k, o in got.items()} == {
        t.task_id: (None, 1.0) for t in tasks}

    # Mind2Web export, scored with the recorded actions as predictions: all correct.
    m2w = tmp_path / "m2w"
    res = run_cli("export", "mind2web", str(run_dir), "--out", str(m2w))
    assert res.returncode == 0, res.stderr
    exported = orjson.loads((m2w / "tasks.json").read_bytes())
    first = exported[0]["actions"][0]
    assert first["raw_html"] and "backend_node_id" in first["cleaned_html"]
    assert first["pos_candidates"][0]["backend_node_id"] in first["cleaned_html"]
    assert len(first["neg_candidates"]) > 3
    res = run_cli("mind2web", "score", "--data", str(m2w / "tasks.json"), "--predictions",
                  str(m2w / "recorded_predictions.jsonl"), "--out", str(m2w / "metrics.json"))
    assert res.returncode == 0, res.stderr
    metrics = orjson.loads((m2w / "metrics.json").read_bytes())
    assert metrics["step_sr"] == 1.0 and metrics["task_sr"] == 1.0, metrics
    assert metrics["micro"]["element_acc"] == 1.0

    # Round trip: importing the export gives back the recorded element actions.
    back = tmp_path / "back"
    res = run_cli("import", "mind2web", str(m2w / "tasks.json"), "--out", str(back))
    assert res.returncode == 0, res.stderr
    with RunStore.open(run_dir) as rec, RunStore.open(back) as imp:
        for traj in rec.iter_trajectories():
            again = imp.load_trajectory(next(r.trajectory_id for r in imp.rows(
                task_id=traj.trajectory_id)))
            assert [_m2w_form(a) for a in _flat(traj)] == [
                _m2w_form(s.action) for s in again.steps]


def _flat(traj):
    """Recorded element actions, with a typed Enter as its own press (as Mind2Web has it)."""
    from webtraj.model.action import Action

    for s in traj.steps:
        a = s.action
        if a is None or a.kind not in (ActionKind.CLICK, ActionKind.TYPE, ActionKind.SELECT,
                                       ActionKind.HOVER):
            continue
        yield a
        if a.kind is ActionKind.TYPE and a.press_enter:
            yield Action(kind=ActionKind.PRESS, value="Enter")


def _m2w_form(a):
    return (a.kind, a.element_id, a.value)


@pytest.mark.slow
def test_record_flights_replay_and_export(tmp_path):
    tasks = suite_tasks(("booking.flights.14",))
    run_dir = record_tasks(tmp_path, tasks)
    with RunStore.open(run_dir) as store:
        assert store.info.settings.agent == "human" and store.info.sandbox is not None
        _check_recording(store, tasks)
    _replay_and_export(tmp_path, run_dir, tasks)


@pytest.mark.slow
def test_record_every_sandbox_site(tmp_path):
    tasks = suite_tasks(ALL_SITES)
    run_dir = record_tasks(tmp_path, tasks)
    with RunStore.open(run_dir) as store:
        _check_recording(store, tasks)
    _replay_and_export(tmp_path, run_dir, tasks)
