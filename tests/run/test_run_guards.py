"""Guards of the main job: the origin allowlist, a worker killed mid-episode, and Ray giving
the same per-task outcomes as local processes."""

import datetime as dt
import os
import signal
import threading

import pytest

from factories import SANDBOX_TODAY as TODAY
from factories import wait_until
from one_page_site import serve_page
from webtraj.execute.episode import STEPS_JOURNAL, EpisodeSpec
from webtraj.execute.local import LocalExecutor
from webtraj.execute.run import RunConfig, execute_run
from webtraj.execute.worker import WorkerConfig
from webtraj.model import Action, Task
from webtraj.report.outcomes import outcomes

OUTSIDE = "http://198.51.100.7"
PAGE = (f"<!doctype html><html><head><title>Leaky page</title>"
        f"<script src='{OUTSIDE}/tracker.js'></script></head>"
        "<body><h1>Hello</h1><a href='/next'>Next</a></body></html>").encode()


@pytest.fixture
def leaky_site():
    with serve_page(PAGE) as base:
        yield base


def test_allowlist_blocks_and_records(tmp_path, leaky_site):
    task = Task(task_id="leak", intent="Open the page", start_url=leaky_site + "/",
                reference_actions=(Action(kind="goto", value=OUTSIDE + "/exfiltrate"),
                                   Action(kind="stop", value="")))
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(task.to_json_bytes(indent=False) + b"\n")
    config = RunConfig(tasks_file=str(tasks_file), agent="replay", evaluate=False)
    with execute_run(config, tmp_path / "run") as store:
        [traj] = list(store.iter_trajectories())
    blocked = traj.blocked_requests
    urls = {b.url for b in blocked}
    assert f"{OUTSIDE}/tracker.js" in urls
    assert any(u.startswith(OUTSIDE + "/exfiltrate") for u in urls)
    assert traj.steps[0].error and "allow" in traj.steps[0].error.lower()
    assert traj.final_observation.url.startswith(leaky_site)


def test_killed_worker_loses_only_its_episode(tmp_path, booking_tasks):
    from webtraj.sites.sandbox import Sandbox

    with Sandbox(dt.date.fromisoformat(TODAY)) as sandbox:
        tasks = [t for t in sandbox.tasks()][:4]
        specs = [EpisodeSpec(task=t, agent="replay", max_steps=30) for t in tasks]
        victim = specs[1].trajectory_id
        config = WorkerConfig(agent="replay", scratch=str(tmp_path))
        journal = config.workdir(specs[1]) / STEPS_JOURNAL
        results = {}

        def on_start(spec, pid):
            if spec.trajectory_id == victim:
                # Once the episode has taken a step (a condition, not a delay: on a fast
                # machine the episode could be over in a fixed delay), kill its worker.
                threading.Thread(target=lambda: wait_until(
                    lambda: journal.exists() and journal.read_bytes().count(b"\n") >= 1, 120)
                    and os.kill(pid, signal.SIGKILL), daemon=True).start()

        executor = LocalExecutor(config, 2)
        executor.run(specs, lambda spec, traj, _: results.__setitem__(spec.trajectory_id, traj),
                     on_start)
    assert set(results) == {s.trajectory_id for s in specs}
    assert results[victim].termination == "error"
    assert "worker process died" in results[victim].error
    for tid, traj in results.items():
        if tid != victim:
            assert traj.termination == "stop" and traj.error is None


def test_ray_and_local_agree(tmp_path):
    pytest.importorskip("ray")
    ids = ("booking.hotels.02", "booking.transit.03", "booking.cars.04")
    per_executor = {}
    for executor in ("local", "ray"):
        config = RunConfig(suite="booking", agent="replay", today=TODAY,
                           task_ids=ids, workers=2, executor=executor)
        with execute_run(config, tmp_path / executor) as store:
            per_executor[executor] = {o.task_id: (o.csr, o.n_steps, o.error)
                                      for o in outcomes(store)}
    assert per_executor["local"] == per_executor["ray"]
    assert all(v[0] == 1.0 for v in per_executor["local"].values())
