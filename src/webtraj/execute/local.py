"""The local executor: N worker processes, each with its own browser running up to
`episodes_per_worker` episodes at once.

The parent hands out episodes and writes results. Each worker is sent one episode more than it
runs at once (`QUEUED`): it starts that one as soon as a running one ends, instead of waiting
for the parent to store the trajectory and send the next; the parent counts an episode as
started (its timeout, `on_start`) when the worker has a free place for it.

A worker whose episode runs past its timeout (plus a grace period) is killed and replaced; a
worker that dies loses only its episodes, which are recorded as errors (one it held but had
not started goes to the next worker), and the run goes on."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

from webtraj.execute.episode import EpisodeSpec, episode_artifacts, error_trajectory
from webtraj.execute.worker import WorkerConfig
from webtraj.execute.worker_process import main as worker_main
from webtraj.model.trajectory import Termination, Trajectory
from webtraj.model.wire import to_wire
from webtraj.runtime.children import main_module_hidden

# Time a worker gets beyond the episode's own timeout to wind down (close the context, write
# the HAR) before it is killed.
GRACE_S = 20.0

# Episodes a worker holds beyond those it runs (started as soon as one of those ends).
QUEUED = 1

# The episode's trajectory and its artifacts (file name -> content or a file to copy).
Artifacts = Mapping[str, bytes | Path]
OnResult = Callable[[EpisodeSpec, Trajectory, Artifacts], None]
OnStart = Callable[[EpisodeSpec, int], None]


@dataclass
class _Slot:
    proc: mp.process.BaseProcess
    conn: Connection
    # Episodes the worker is running: trajectory id -> (spec, start time).
    running: dict[str, tuple[EpisodeSpec, float]] = field(default_factory=dict)
    # Episodes sent to the worker that wait there for a free place, in the order sent.
    queued: deque[EpisodeSpec] = field(default_factory=deque)


class LocalExecutor:
    def __init__(self, config: WorkerConfig, workers: int = 1) -> None:
        self.config = config
        self.workers = max(1, workers)
        self._ctx = mp.get_context("spawn")

    def _spawn(self) -> _Slot:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=worker_main,
                                 args=(os.getpid(), child, to_wire(self.config),
                                       self.config.downloads_in_flight()),
                                 daemon=True)
        with main_module_hidden():  # the child imports only what a worker needs
            proc.start()
        child.close()
        return _Slot(proc=proc, conn=parent)

    def run(self, specs: Iterable[EpisodeSpec], on_result: OnResult,
            on_start: OnStart | None = None) -> None:
        pending = deque(specs)
        if not pending:
            return
        per_worker = self.config.episodes_per_worker
        slots = [self._spawn() for _ in range(min(self.workers, -(-len(pending) // per_worker)))]
        try:
            while pending or any(s.running for s in slots):
                # Every worker's free places first, then one more each to hold.
                for limit in (per_worker, per_worker + QUEUED):
                    for slot in slots:
                        while len(slot.running) + len(slot.queued) < limit and pending:
                            spec = pending.popleft()
                            slot.conn.send(spec.model_dump_json())
                            slot.queued.append(spec)
                        self._start_queued(slot, on_start)
                busy = [s for s in slots if s.running]
                ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                             timeout=0.5)
                for i, slot in enumerate(slots):
                    if slot.conn in ready:
                        self._receive(slot, on_result, on_start)
                    if slot.running and self._lost(slot, ready, on_result):
                        pending.extendleft(reversed(slot.queued))  # never started: again
                        slots[i] = self._spawn()
        finally:
            for slot in slots:
                self._retire(slot, polite=True)

    def _start_queued(self, slot: _Slot, on_start: OnStart | None) -> None:
        """The worker starts its queued episodes, in order, as places free up."""
        while slot.queued and len(slot.running) < self.config.episodes_per_worker:
            spec = slot.queued.popleft()
            slot.running[spec.trajectory_id] = (spec, time.monotonic())
            if on_start:
                on_start(spec, slot.proc.pid)

    def _receive(self, slot: _Slot, on_result: OnResult, on_start: OnStart | None) -> None:
        """Hand on every trajectory the worker has sent. Each one frees a place that the
        worker gave at once to its next held episode, which may already have ended too (one
        that could not start) and be the next message: start it before reading on."""
        try:
            while slot.conn.poll():
                traj = Trajectory.model_validate_json(slot.conn.recv())
                spec, _ = slot.running.pop(traj.trajectory_id)
                self._start_queued(slot, on_start)
                on_result(spec, traj, episode_artifacts(self.config.workdir(spec)))
        except (EOFError, OSError):
            return  # the worker died: `_lost` sees it

    def _lost(self, slot: _Slot, ready: list, on_result: OnResult) -> bool:
        """A worker that died, or has an episode past its timeout and grace, is killed; each
        of its episodes is recorded with the journaled steps it had. True when replaced."""
        now = time.monotonic()
        late = {tid for tid, (spec, started) in slot.running.items()
                if now - started > spec.timeout_s + GRACE_S}
        if not late and slot.proc.sentinel not in ready and slot.proc.is_alive():
            return False
        self._retire(slot)
        for tid, (spec, _) in slot.running.items():
            if tid in late:
                term, why = Termination.TIMEOUT, (
                    f"episode exceeded {spec.timeout_s:.0f}s; worker killed")
            elif late:
                term, why = Termination.ERROR, (
                    "worker killed because another of its episodes exceeded its timeout")
            else:
                term, why = Termination.ERROR, (
                    f"worker process died (exit code {slot.proc.exitcode})")
            workdir = self.config.workdir(spec)
            on_result(spec, error_trajectory(spec, term, why, workdir),
                      episode_artifacts(workdir))
        slot.running.clear()
        return True

    @staticmethod
    def _retire(slot: _Slot, *, polite: bool = False) -> None:
        if polite and slot.proc.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                slot.conn.send(None)
            slot.proc.join(timeout=10)
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join(timeout=5)
        slot.conn.close()

