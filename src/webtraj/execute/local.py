"""The local executor: N worker processes, each with its own browser.

The parent hands out episodes and writes results. A worker whose episode runs past its timeout
(plus a grace period) is killed and replaced; a worker that dies loses only its episode, which
is recorded as an error, and the run goes on."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

from webtraj.execute.episode import EpisodeSpec, episode_artifacts, error_trajectory
from webtraj.execute.worker import WorkerConfig, process_main
from webtraj.model.lifetime import die_with_parent
from webtraj.model.trajectory import Termination, Trajectory

# Time a worker gets beyond the episode's own timeout to wind down (close the context, write
# the HAR) before it is killed.
GRACE_S = 20.0

# The episode's trajectory and its artifacts (file name -> content or a file to copy).
Artifacts = Mapping[str, bytes | Path]
OnResult = Callable[[EpisodeSpec, Trajectory, Artifacts], None]
OnStart = Callable[[EpisodeSpec, int], None]


@dataclass
class _Slot:
    proc: mp.process.BaseProcess
    conn: Connection
    spec: EpisodeSpec | None = None
    started: float = 0.0


class LocalExecutor:
    def __init__(self, config: WorkerConfig, workers: int = 1) -> None:
        self.config = config
        self.workers = max(1, workers)
        self._ctx = mp.get_context("spawn")

    def _spawn(self) -> _Slot:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main,
                                 args=(os.getpid(), child, self.config.model_dump_json()),
                                 daemon=True)
        proc.start()
        child.close()
        return _Slot(proc=proc, conn=parent)

    def run(self, specs: Iterable[EpisodeSpec], on_result: OnResult,
            on_start: OnStart | None = None) -> None:
        pending = deque(specs)
        if not pending:
            return
        slots = [self._spawn() for _ in range(min(self.workers, len(pending)))]
        try:
            while pending or any(s.spec is not None for s in slots):
                for slot in slots:
                    if slot.spec is None and pending:
                        slot.spec, slot.started = pending.popleft(), time.monotonic()
                        slot.conn.send(slot.spec.model_dump_json())
                        if on_start:
                            on_start(slot.spec, slot.proc.pid)
                busy = [s for s in slots if s.spec is not None]
                ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                             timeout=0.5)
                for i, slot in enumerate(slots):
                    if slot.spec is None:
                        continue
                    if slot.conn in ready:
                        try:
                            traj = Trajectory.model_validate_json(slot.conn.recv())
                        except (EOFError, OSError):
                            traj = None
                        if traj is not None:
                            spec, slot.spec = slot.spec, None
                            on_result(spec, traj, episode_artifacts(self.config.workdir(spec)))
                            continue
                    timed_out = time.monotonic() - slot.started > slot.spec.timeout_s + GRACE_S
                    if slot.proc.sentinel in ready or not slot.proc.is_alive() or timed_out:
                        spec = slot.spec
                        if timed_out:
                            term, why = Termination.TIMEOUT, (
                                f"episode exceeded {spec.timeout_s:.0f}s; worker killed")
                        else:
                            term, why = Termination.ERROR, (
                                f"worker process died (exit code {slot.proc.exitcode})")
                        self._retire(slot)
                        slots[i] = self._spawn()
                        workdir = self.config.workdir(spec)
                        on_result(spec, error_trajectory(spec, term, why, workdir),
                                  episode_artifacts(workdir))
        finally:
            for slot in slots:
                self._retire(slot, polite=True)

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


def _worker_main(parent_pid: int, conn: Connection, config_json: str) -> None:
    """A worker that the kernel kills if the run dies (its browser goes with its driver)."""
    die_with_parent(parent_pid)
    process_main(conn, config_json)
