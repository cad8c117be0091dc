"""Runs that tell the truth: a resumed run scores every trajectory against the sites it
visited, a dead model endpoint is an error (not the agent's failure), scores a crash lost are
recomputed on resume, and a killed episode keeps the steps and requests it made."""

import datetime as dt
import os
import signal
import socket
import sqlite3
import threading
import time
from contextlib import ExitStack, closing

import orjson
import pytest

from factories import SANDBOX_TODAY as TODAY
from webtraj.evaluate.run_scoring import RunEnvironments, score_run
from webtraj.execute.episode import STEPS_JOURNAL, EpisodeSpec
from webtraj.execute.local import LocalExecutor
from webtraj.execute.run import RunConfig, execute_run
from webtraj.execute.worker import WorkerConfig
from webtraj.report.outcomes import aggregate, outcomes
from webtraj.store import RunStore
from webtraj.testing import Fault, ScriptedLLMServer

FIRST, SECOND = "booking.hotels.02", "booking.cars.04"


@pytest.fixture
def plain_site():
    """A page on loopback http (a plain static server in a thread)."""
    import http.server

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>Plain</title><h1>Plain page</h1>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def _scores(store, tid):
    return {s.evaluator: (s.value, s.reason, tuple((c.name, c.matching) for c in s.constraints))
            for s in store.scores(tid)}


def _occupy(stack: ExitStack, urls: dict[str, str]) -> None:
    """Listen on every port the run recorded, so its next session must serve elsewhere."""
    for url in urls.values():
        sock = stack.enter_context(closing(socket.socket()))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        sock.bind(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        sock.listen()


def test_resumed_run_scores_each_trajectory_against_the_sites_it_visited(tmp_path):
    run = tmp_path / "run"
    config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=(FIRST,))
    with execute_run(config, run) as store:
        first_urls = dict(store.info.site_urls)
        [row] = list(store.rows())
        before = _scores(store, row.trajectory_id)
    assert before and all(v[0] == 1.0 for v in before.values())

    # Second session: the recorded ports are taken, so the sites move to other ports.
    with ExitStack() as stack:
        _occupy(stack, first_urls)
        config2 = config.model_copy(update={"task_ids": (FIRST, SECOND)})
        with execute_run(config2, run) as store:
            second = next(t for t in store.iter_trajectories() if t.task.task_id == SECOND)
    assert store.info.site_urls == first_urls  # the run record keeps the run's own URLs
    assert second.site_urls and second.site_urls != first_urls
    assert second.task.start_url.startswith(tuple(second.site_urls.values()))

    # `webtraj eval --run`: every trajectory re-scored from the run record alone.
    with RunStore.open(run, write=True) as store:
        result = score_run(store, None, RunEnvironments(store.info))
        assert result.trajectories == 2 and result.errors == 0 and result.unscored == 0
        assert _scores(store, row.trajectory_id) == before
        rescored = _scores(store, second.trajectory_id)
    assert rescored and all(v[0] == 1.0 for v in rescored.values())


def test_a_trace_at_unknown_origins_is_unscored_not_passed(tmp_path):
    """The run record says other ports than the trajectory used (as an old webtraj wrote it):
    the network checks, including the 'no payment' should_not_exist one, say unscored."""
    run = tmp_path / "run"
    config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=(FIRST,))
    with execute_run(config, run):
        pass
    info = orjson.loads((run / "run.json").read_bytes())
    info["site_urls"] = {k: v.rsplit(":", 1)[0] + ":1" for k, v in info["site_urls"].items()}
    (run / "run.json").write_bytes(orjson.dumps(info))
    with RunStore.open(run, write=True) as store:
        score_run(store, None, RunEnvironments(store.info))
        [row] = list(store.rows())
        latest = store.scores(row.trajectory_id)
    network = [s for s in latest if s.evaluator.startswith("NetworkEventEvaluator")]
    assert len(network) >= 2  # the task's expected request and the no-payment check
    for s in network:
        assert s.value is None and "other site URLs" in s.reason
    oracle = [s for s in latest if s.evaluator.startswith("constraints")]
    assert oracle and all(s.value is None for s in oracle)


def _closed_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("agent", ["llm", "mindact"])
def test_dead_model_endpoint_is_an_error_then_retried(tmp_path, agent):
    run = tmp_path / "run"
    dead = f"base_url=http://127.0.0.1:{_closed_port()}/v1,model=scripted,max_retries=1"
    config = RunConfig(suite="booking", agent=agent, today=TODAY, task_ids=(FIRST,),
                       max_steps=3, llm=dead)
    with execute_run(config, run) as store:
        [t] = list(store.iter_trajectories())
        [agg] = aggregate(outcomes(store), ("site",))
        agent_usage = store.info.usage["agent"]["total"]
    assert t.termination == "error" and "infrastructure failure" in t.error
    assert "LLM call" in t.error and not t.steps
    # The failed calls still count: the error carries them out of the agent's decision.
    assert t.usage is not None and t.usage.total.failures >= 1
    assert agent_usage["failures"] == t.usage.total.failures
    assert agg.errors == 1 and agg.sr is None and agg.csr is None  # not a 0

    # A resumed run with the endpoint back (served elsewhere: the model, not its address,
    # defines the run) runs the episode again.
    with ScriptedLLMServer(default="Done here. In summary, the next action I will perform is "
                                   "```stop []```") as server:
        live = config.model_copy(update={"llm": f"base_url={server.base_url},model=scripted"})
        with execute_run(live, run) as store:
            [t] = list(store.iter_trajectories())
        assert server.request_count >= 1
    assert t.error is None and t.termination in ("stop", "max_steps")
    assert t.site_urls is None  # the resumed run served its sites on the recorded ports


def test_server_errors_after_retries_are_an_error_but_garbage_is_the_agents(tmp_path):
    with ScriptedLLMServer(default="I like turtles.") as server:
        spec = f"base_url={server.base_url},model=scripted,max_retries=1"
        config = RunConfig(suite="booking", agent="llm", today=TODAY, task_ids=(FIRST,),
                           max_steps=2, llm=spec)
        with execute_run(config, tmp_path / "garbage") as store:
            [t] = list(store.iter_trajectories())
        assert t.termination == "max_steps" and t.error is None  # unparseable: its own failure
        server.inject(Fault.server_error(503), times=None)
        # The same prompts as the first run (sandbox sites are named by their stable origin
        # in prompts): past the cache, so that the model is asked again.
        down = config.model_copy(update={"no_cache": True})
        with execute_run(down, tmp_path / "down") as store:
            [t] = list(store.iter_trajectories())
    assert t.termination == "error" and "503" in t.error


def test_scores_lost_in_a_crash_are_computed_on_resume(tmp_path):
    run = tmp_path / "run"
    config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=(FIRST, SECOND))
    with execute_run(config, run) as store:
        ids = sorted(r.trajectory_id for r in store.rows())
        before = {tid: _scores(store, tid) for tid in ids}
    # What a SIGKILL between storing a trajectory and storing its scores leaves on disk.
    with closing(sqlite3.connect(run / "index.sqlite")) as db, db:
        db.execute("DELETE FROM score_sets WHERE traj = "
                   "(SELECT id FROM trajectories WHERE trajectory_id = ?)", (ids[0],))
    plans = []
    with execute_run(config, run, on_plan=plans.append) as store:
        after = {tid: _scores(store, tid) for tid in ids}
    assert plans[0].rescoring == 1 and not plans[0].specs
    assert after == before


def test_a_killed_episode_keeps_its_steps_and_requests(tmp_path, booking_tasks):
    from webtraj.sites.sandbox import Sandbox

    with Sandbox(dt.date.fromisoformat(TODAY)) as sandbox:
        task = next(t for t in sandbox.tasks() if t.task_id == "booking.flights.03")
        spec = EpisodeSpec(task=task, agent="replay", max_steps=30)
        config = WorkerConfig(agent="replay", scratch=str(tmp_path))
        journal = config.workdir(spec) / STEPS_JOURNAL
        results = {}

        def kill_after_two_steps(spec, pid):
            def watch():
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    if journal.exists() and journal.read_bytes().count(b"\n") >= 2:
                        os.kill(pid, signal.SIGKILL)
                        return
                    time.sleep(0.01)
            threading.Thread(target=watch, daemon=True).start()

        LocalExecutor(config, 1).run(
            [spec], lambda s, t, artifacts: results.update(traj=t, artifacts=artifacts),
            kill_after_two_steps)
    traj, artifacts = results["traj"], results["artifacts"]
    assert traj.termination == "error" and "worker process died" in traj.error
    assert len(traj.steps) >= 2 and [s.index for s in traj.steps] == list(
        range(len(traj.steps)))
    assert traj.steps[0].action == task.reference_actions[0]
    assert traj.network_trace == "network.har" and "step-000.png" in artifacts
    har = orjson.loads(artifacts["network.har"].read_bytes())
    urls = [e["request"]["url"] for e in har["log"]["entries"]]
    assert any(u.startswith(task.start_url.split("?")[0]) for u in urls)
    assert not journal.exists()


def test_a_task_without_start_url_is_reported_not_a_dead_worker(tmp_path, plain_site):
    from webtraj.model import Action, Task

    good = Task(task_id="good", intent="Open the page", start_url=plain_site,
                reference_actions=(Action(kind="stop", value="done"),))
    bad = Task(task_id="no-start", intent="Start nowhere")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(b"".join(t.to_json_bytes(indent=False) + b"\n" for t in (bad, good)))
    plans = []
    config = RunConfig(tasks_file=str(tasks), agent="replay", evaluate=False)
    with execute_run(config, tmp_path / "run", on_plan=plans.append) as store:
        trajs = list(store.iter_trajectories())
    assert [t.task.task_id for t in trajs] == ["good"] and trajs[0].error is None
    [problem] = plans[0].task_errors
    assert "no-start" in problem and "start_url" in problem
