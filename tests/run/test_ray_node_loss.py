"""A node lost mid-episode on a real two-node Ray cluster costs only its episodes: `webtraj run
--executor ray` finishes, each episode the lost node was running is recorded once as an error
(not scored 0), the queued episodes run on the surviving node, and running the same command
again on the same folder reruns the errored episodes to completion."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from factories import SANDBOX_TODAY as TODAY
from factories import wait_until
from webtraj.cli.common import EPISODE_ERRORS
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.store import RunStore
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.ray_cluster import LocalRayCluster

pytest.importorskip("ray")
if not os.path.exists("/usr/bin/chromium"):
    pytest.skip("needs Debian Chromium", allow_module_level=True)

pytestmark = pytest.mark.slow

# Two actors (one per node, one CPU each) run two episodes each; two more wait in the queue.
TASKS = ("booking.hotels.01", "booking.rentals.01", "booking.flights.01", "booking.transit.01",
         "booking.cars.01", "booking.hotels.02")
IN_FLIGHT = 4


class Gate:
    """The scripted model holds every reply until the test opens the gate, so the test knows
    each running episode is mid-step when the node dies."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.waiting = 0
        self._lock = threading.Lock()

    def reply(self, request) -> str:
        with self._lock:
            self.waiting += 1
        self.open.wait(timeout=240)
        return f"Nothing to do here. {ACTION_PHRASE} ```stop []```"


def _run(cluster: LocalRayCluster, server: ScriptedLLMServer, out: Path, log: Path
         ) -> subprocess.Popen:
    webtraj = Path(sys.executable).parent / "webtraj"
    return subprocess.Popen(
        [str(webtraj), "run", "--suite", "booking", "--agent", "llm", "--llm",
         f"base_url={server.base_url},model=scripted", "--task-ids", ",".join(TASKS),
         "--today", TODAY, "--max-steps", "3", "--workers", "2", "--episodes-per-worker", "2",
         "--executor", "ray", "--ray-address", cluster.address, "--timeout", "200",
         "--out", str(out)],
        stdout=log.open("wb"), stderr=subprocess.STDOUT)


def _outcomes(out: Path) -> dict[str, tuple[str, str | None, dict[str, float | None]]]:
    with RunStore.open(out) as store:
        result = {}
        for traj in store.iter_trajectories():
            scores = {s.evaluator: s.value for s in store.scores(traj.trajectory_id)}
            result[traj.task.task_id] = (traj.termination, traj.error, scores)
    return result


def test_lost_node_costs_only_its_episodes_and_resume_reruns_them(tmp_path, tmp_path_factory):
    gate = Gate()
    out, log = tmp_path / "run", tmp_path / "run.log"
    with LocalRayCluster(nodes=2, root=tmp_path_factory.mktemp("ray")) as cluster, \
            ScriptedLLMServer(default=gate.reply) as server:
        run = _run(cluster, server, out, log)
        try:
            # Every in-flight episode has asked the model for its first step.
            assert wait_until(lambda: gate.waiting >= IN_FLIGHT or run.poll() is not None, 240), \
                log.read_text()
            assert run.poll() is None, log.read_text()
            time.sleep(1.0)
            assert gate.waiting == IN_FLIGHT  # the queued episodes wait for a free slot
            killed = cluster.kill_node(1)
            assert killed
            time.sleep(1.0)
            gate.open.set()
            # It finishes, and says (exit 3) that episodes ended in an error.
            assert run.wait(timeout=300) == EPISODE_ERRORS, log.read_text()
            assert "2 of 6 episodes ended in an error" in log.read_text()
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()

        first = _outcomes(out)
        assert set(first) == set(TASKS), first
        errors = {t: o for t, o in first.items() if o[0] == "error"}
        # The lost node held one actor with two episodes: each is one error trajectory.
        assert len(errors) == 2, first
        for _, error, scores in errors.values():
            assert "worker died" in error
            # An infrastructure failure is no score: nothing stored says 0.
            assert all(v is None for v in scores.values()), scores
        for task, (termination, error, _) in first.items():
            if task not in errors:
                assert termination == "stop" and error is None, first
        with sqlite3.connect(out / "index.sqlite") as conn:
            [(rows,)] = conn.execute("SELECT COUNT(*) FROM trajectories").fetchall()
        assert rows == len(TASKS)  # once each, not twice for a lost actor's episodes

        # Resume on the same head (the lost node does not come back).
        log2 = tmp_path / "resume.log"
        again = _run(cluster, server, out, log2)
        try:
            assert again.wait(timeout=300) == 0, log2.read_text()
        finally:
            if again.poll() is None:
                again.kill()
                again.wait()
        assert "4 episode(s) already done" in log2.read_text()
        second = _outcomes(out)
        assert all(o[0] == "stop" and o[1] is None for o in second.values()), second
        for task in set(TASKS) - set(errors):
            assert second[task] == first[task]  # the finished episodes were not run again
