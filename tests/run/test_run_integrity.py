"""Integrity of `webtraj run` with real Chromium and pages on 127.0.0.1: two runs on one --out
(the second refused while the first writes), resume only with the run's own settings, task ids
of any characters and length as distinct trajectories, and an episode whose worker cannot
start it recorded as an error while the run goes on."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

import webtraj
from factories import wait_until
from one_page_site import serve_page
from webtraj.cli.app import app
from webtraj.execute.episode import EpisodeSpec
from webtraj.execute.local import LocalExecutor
from webtraj.execute.worker import WorkerConfig
from webtraj.model import Action, Task, Trajectory
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.store import RunStore
from webtraj.testing import ScriptedLLMServer

runner = CliRunner()
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(__file__).parents[1]), str(Path(webtraj.__file__).parents[1])])}
PAGE = b"<!doctype html><title>Page</title><h1>Hello</h1><button>Go</button>"


@pytest.fixture
def site():
    with serve_page(PAGE) as base:
        yield base + "/"


def _task(task_id: str, url: str, intent: str = "Say hello") -> Task:
    return Task(task_id=task_id, intent=intent, start_url=url,
                reference_actions=(Action(kind="stop", value="hello"),))


def _tasks_file(path: Path, tasks: list[Task]) -> Path:
    path.write_bytes(b"".join(t.to_json_bytes(indent=False) + b"\n" for t in tasks))
    return path


def _run(*args: str, code: int = 0) -> str:
    """The command's output with all white space removed (the console wraps long lines
    anywhere): compare with `_flat(...)`."""
    res = runner.invoke(app, ["run", *args])
    assert res.exit_code == code, res.output
    return _flat(res.output)


def _flat(text: str) -> str:
    return "".join(text.split())


def _ids(run: Path) -> dict[str, str]:
    with RunStore.open(run) as store:
        return {r.trajectory_id: r.task_id for r in store.rows()}


@pytest.mark.slow  # tests/test_run_lock.py checks the lock with real processes in the fast suite
def test_two_runs_on_one_out_the_second_is_refused(tmp_path, site):
    """The first run is held inside its episode (its model answers only when the test says);
    a second `webtraj run` on the same --out meanwhile is refused, naming the first."""
    asked, answer = threading.Event(), threading.Event()

    def reply(request) -> str:
        asked.set()
        answer.wait(600)
        return f"Done. {ACTION_PHRASE} ```stop [hello]```"

    tasks = _tasks_file(tmp_path / "tasks.jsonl", [_task("a", site), _task("b", site)])
    out = tmp_path / "run"
    with ScriptedLLMServer(default=reply) as llm:
        args = [sys.executable, "-m", "webtraj.cli.app", "run", "--tasks", str(tasks),
                "--agent", "llm", "--llm", f"base_url={llm.base_url},model=scripted,timeout=600",
                "--no-eval", "--timeout", "900", "--out", str(out)]
        first = subprocess.Popen(args, env=ENV, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            assert wait_until(asked.is_set, timeout=300), "the first run never asked its model"
            second = subprocess.run(args, env=ENV, capture_output=True, text=True,
                                    timeout=300)
            assert second.returncode == 2, second.stderr
            message = _flat(second.stderr)
            assert _flat(f"process {first.pid}") in message
            assert _flat("one writer per run") in message
        finally:
            answer.set()
            _, err = first.communicate(timeout=600)
        assert first.returncode == 0, err
    ids = _ids(out)
    assert sorted(ids.values()) == ["a", "b"]  # each episode once, by the first run only


def test_resume_only_with_the_runs_own_settings(tmp_path, site):
    tasks = _tasks_file(tmp_path / "tasks.jsonl", [_task("a", site)])
    out = tmp_path / "run"
    base = ["--tasks", str(tasks), "--agent", "replay", "--no-eval", "--out", str(out)]
    _run(*base, "--max-steps", "5")
    run_json = (out / "run.json").read_bytes()
    definition = orjson.loads(run_json)["definition"]
    assert (definition["agent"], definition["max_steps"]) == ("replay", 5)
    assert len(definition["tasks_digest"]) == 64

    assert _flat("1 episode(s) already done") in _run(*base, "--max-steps", "5")  # a resume
    run_json = (out / "run.json").read_bytes()  # with the resumed session's timings
    assert orjson.loads(run_json)["definition"] == definition
    shown = _run(*base, "--max-steps", "3", code=2)
    assert _flat("max_steps: the run has 5, this command 3") in shown and "--new" in shown
    shown = _run(*base[:-2], "--out", str(out), "--agent", "heuristic", "--max-steps", "5",
                 code=2)
    assert _flat("agent: the run has 'replay', this command 'heuristic'") in shown
    _tasks_file(tasks, [_task("a", site, intent="Say goodbye")])  # same path, other tasks
    assert "tasks_digest" in _run(*base, "--max-steps", "5", code=2)
    # A command that fails before its first episode changes nothing of the run it names.
    _run("--tasks", str(tmp_path / "missing.jsonl"), "--agent", "replay", "--max-steps", "5",
         "--out", str(out), code=2)
    assert (out / "run.json").read_bytes() == run_json
    assert len(_ids(out)) == 1

    shown = _run(*base, "--max-steps", "3", "--new")
    [aside] = tmp_path.glob("run.replaced-*")
    assert _flat(f"the earlier run is kept as {aside}") in shown
    assert (aside / "run.json").read_bytes() == run_json and len(_ids(aside)) == 1
    assert orjson.loads((out / "run.json").read_bytes())["definition"]["max_steps"] == 3
    assert len(_ids(out)) == 1


def test_a_run_that_fails_before_its_first_episode_leaves_no_run(tmp_path, site):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "x"}\n')  # no intent: no usable task
    out = tmp_path / "new-run"
    _run("--tasks", str(bad), "--agent", "replay", "--out", str(out), code=2)
    assert not out.exists()
    (tmp_path / "empty-dir").mkdir()  # a folder the user made stays, empty
    _run("--tasks", str(bad), "--agent", "replay", "--out", str(tmp_path / "empty-dir"),
         code=2)
    assert list((tmp_path / "empty-dir").iterdir()) == []


def test_task_ids_of_any_script_and_length_are_distinct_trajectories(tmp_path, site):
    ids = ["酒店-paris", "飯店-paris", "hotels/paris", "hotels_paris", "x" * 260,
           "x" * 259 + "y", ".tmp-hidden"]
    tasks = _tasks_file(tmp_path / "tasks.jsonl", [_task(i, site) for i in ids])
    out = tmp_path / "run"
    args = ["--tasks", str(tasks), "--agent", "replay", "--no-eval", "--workers", "2",
            "--out", str(out)]
    _run(*args)
    stored = _ids(out)
    assert sorted(stored.values()) == sorted(ids)  # every episode stored, none overwritten
    with RunStore.open(out) as store:
        for tid, task_id in stored.items():
            traj = store.load_trajectory(tid)
            assert traj.task.task_id == task_id and traj.error is None
            assert len(tid) < 200 and not tid.startswith(".")
    assert "hotels_paris__replay__t0" in stored  # plain ids stay as they are
    assert _flat("7 episode(s) already done") in _run(*args)  # resume converges
    assert len(_ids(out)) == 7


def test_duplicate_task_ids_refuse_the_file_by_line(tmp_path, site):
    tasks = _tasks_file(tmp_path / "tasks.jsonl", [_task("a", site), _task("b", site),
                                                    _task("a", site, intent="Other")])
    out = _run("--tasks", str(tasks), "--agent", "replay", "--out", str(tmp_path / "r"),
               code=2)
    assert _flat(f"{tasks}: record line 3: field 'task_id': duplicate task_id 'a': "
                 "line 1 has it too") in out
    assert not (tmp_path / "r").exists()


def test_an_episode_the_worker_cannot_start_is_an_error_and_the_run_goes_on(tmp_path, site):
    """The worker cannot make one episode's scratch folder (a file is in its way): that
    episode is stored as an error at once and the others run."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    specs = [EpisodeSpec(task=_task(t, site), agent="replay", timeout_s=120)
             for t in ("first", "blocked", "last")]
    (scratch / specs[1].trajectory_id).write_text("in the way")
    config = WorkerConfig(agent="replay", scratch=str(scratch))
    got: dict[str, Trajectory] = {}
    LocalExecutor(config, workers=1).run(
        specs, lambda spec, traj, artifacts: got.__setitem__(spec.task.task_id, traj))
    assert sorted(got) == ["blocked", "first", "last"]
    assert got["first"].error is None and got["last"].error is None
    assert got["first"].answer == "hello"
    blocked = got["blocked"]
    assert blocked.termination == "error" and "could not run" in blocked.error
    assert "FileExistsError" in blocked.error or "NotADirectoryError" in blocked.error


def test_a_held_episode_that_ends_with_the_one_before_it_is_counted_once(tmp_path):
    """A worker gives a freed place to its held episode at once; when that one ends at once
    too (it could not start), both results reach the parent in one read. The parent starts the
    held one before reading on (on main it raised KeyError on the second result)."""
    import multiprocessing as mp
    from types import SimpleNamespace

    from webtraj.execute.episode import error_trajectory
    from webtraj.execute.local import _Slot
    from webtraj.model.trajectory import Termination

    config = WorkerConfig(agent="replay", scratch=str(tmp_path))
    first, held = (EpisodeSpec(task=_task(t, "http://127.0.0.1:1/"), agent="replay")
                   for t in ("first", "held"))
    parent, child = mp.Pipe()
    slot = _Slot(proc=SimpleNamespace(pid=4242), conn=parent)  # type: ignore[arg-type]
    slot.running[first.trajectory_id] = (first, 0.0)
    slot.queued.append(held)
    for spec in (first, held):
        child.send(error_trajectory(spec, Termination.ERROR, "x", tmp_path / "w")
                   .model_dump_json())
    events: list[tuple[str, str]] = []
    LocalExecutor(config)._receive(
        slot, lambda spec, traj, artifacts: events.append(("result", spec.task.task_id)),
        lambda spec, pid: events.append(("start", spec.task.task_id)))
    assert events == [("start", "held"), ("result", "first"), ("result", "held")]
    assert not slot.running and not slot.queued
