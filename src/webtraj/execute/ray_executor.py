"""The Ray executor: the same workers as actors, on a local or remote Ray cluster.

Scheduling mirrors the local executor (`episodes_per_worker` episodes per worker at a time,
a hung episode's actor killed after its timeout plus grace, a dead actor replaced once), so
both give the same per-task outcomes. A lost node costs the episodes its actor was running
(each recorded once as an error, retried by resume); the rest go to actors that are up."""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webtraj.execute.episode import EpisodeSpec, episode_artifacts, error_trajectory
from webtraj.execute.local import GRACE_S, OnResult, OnStart
from webtraj.execute.ray_cluster import connect
from webtraj.execute.scratch import OwnedScratch
from webtraj.execute.worker import EpisodeWorker, WorkerConfig
from webtraj.model.trajectory import Termination, Trajectory
from webtraj.model.wire import from_wire, to_wire

# How long the executor waits, with episodes left and none running, for an actor to be placed.
START_TIMEOUT_S = 300.0


class _ActorBody:
    """Runs inside the actor process, on any node: its scratch folder is private to its node,
    and an episode's artifacts go back to the driver with its trajectory, through Ray."""

    def __init__(self, config_json: bytes) -> None:
        config = from_wire(WorkerConfig, config_json)
        # Owned for the actor's life: a killed actor's folder goes with the next sweep.
        self._scratch = OwnedScratch()
        scratch = str(self._scratch.make())
        self.worker = EpisodeWorker(config.model_copy(update={"scratch": scratch}))

    async def run(self, spec_json: str) -> tuple[str, dict[str, bytes]]:
        spec = EpisodeSpec.model_validate_json(spec_json)
        traj = await self.worker.run(spec)
        workdir = self.worker.config.workdir(spec)
        artifacts = {name: path.read_bytes() for name, path in episode_artifacts(workdir).items()}
        shutil.rmtree(workdir, ignore_errors=True)
        return traj.model_dump_json(), artifacts

    def pid(self) -> int:
        return os.getpid()


@dataclass
class _Actor:
    """An actor and the call that tells when it is up (its pid): episodes go only to actors
    that are up, so one that cannot be placed (its node lost, no free CPU left) holds none."""

    handle: Any
    started: Any  # object ref of pid()
    pid: int | None = None


class RayExecutor:
    def __init__(self, config: WorkerConfig, workers: int = 1, *, address: str | None = None,
                 num_cpus: int | None = None) -> None:
        self.config = config
        self.workers = max(1, workers)
        self.address = address
        self.num_cpus = num_cpus

    def run(self, specs: Iterable[EpisodeSpec], on_result: OnResult,
            on_start: OnStart | None = None) -> None:
        pending = deque(specs)
        if not pending:
            return
        ray = connect(self.address,
                      num_cpus=self.num_cpus or max(self.workers, os.cpu_count() or 1))
        per_actor = self.config.episodes_per_worker
        actor_cls = ray.remote(num_cpus=1, max_restarts=0,
                               max_concurrency=per_actor + 1)(_ActorBody)
        config_json = to_wire(self.config)  # the accounts' passwords in clear

        def spawn() -> _Actor:
            handle = actor_cls.remote(config_json)
            return _Actor(handle, handle.pid.remote())

        wanted = min(self.workers, -(-len(pending) // per_actor))
        actors = [spawn() for _ in range(wanted)]
        running: dict = {}  # object ref -> (actor, spec, started)
        idle_since = time.monotonic()  # when the last actor was up with work to give
        start_failures = 0
        try:
            while pending or running:
                for i, actor in enumerate(actors):
                    if actor.pid is None and ray.wait([actor.started], timeout=0)[0]:
                        try:
                            actor.pid = ray.get(actor.started)
                        except ray.exceptions.RayError as exc:
                            start_failures += 1
                            if start_failures > 2 * len(actors):  # not a lost node: broken
                                self._give_up(pending, on_result, "the Ray worker could not "
                                              f"start: {type(exc).__name__}: {exc}"[:2000])
                            actors[i] = self._replace(ray, actor, spawn)
                load = Counter(id(a) for a, _, _ in running.values())
                for actor in actors:
                    while actor.pid is not None and load[id(actor)] < per_actor and pending:
                        load[id(actor)] += 1
                        spec = pending.popleft()
                        ref = actor.handle.run.remote(spec.model_dump_json())
                        running[ref] = (actor, spec, time.monotonic())
                        if on_start:
                            on_start(spec, actor.pid)
                if running or any(a.pid is not None for a in actors):
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since > START_TIMEOUT_S:
                    self._give_up(pending, on_result, f"no Ray worker could start in "
                                  f"{START_TIMEOUT_S:.0f}s (no node with a free CPU)")
                waiting = list(running) + [a.started for a in actors if a.pid is None]
                done, _ = ray.wait(waiting, num_returns=1, timeout=0.5)
                for ref in done:
                    if ref not in running:
                        continue  # an actor is up: it gets work on the next turn
                    actor, spec, _ = running.pop(ref)
                    try:
                        traj_json, artifacts = ray.get(ref)
                        traj = Trajectory.model_validate_json(traj_json)
                    except ray.exceptions.RayError as exc:
                        # The actor's node (and its scratch folder) may be gone with it. Its
                        # other episodes fail the same way, each recorded once; the actor is
                        # replaced once.
                        actors = self._replace_in(ray, actors, actor, spawn)
                        traj = error_trajectory(spec, Termination.ERROR,
                                                f"worker died: {type(exc).__name__}")
                        artifacts = {}
                    on_result(spec, traj, artifacts)
                now = time.monotonic()
                for ref, (actor, spec, started) in list(running.items()):
                    if now - started > spec.timeout_s + GRACE_S:
                        running.pop(ref)
                        actors = self._replace_in(ray, actors, actor, spawn)
                        on_result(spec, error_trajectory(
                            spec, Termination.TIMEOUT,
                            f"episode exceeded {spec.timeout_s:.0f}s; worker killed"), {})
        finally:
            for actor in actors:
                ray.kill(actor.handle)

    def _replace_in(self, ray, actors: list[_Actor], actor: _Actor, spawn) -> list[_Actor]:
        return [self._replace(ray, a, spawn) if a is actor else a for a in actors]

    @staticmethod
    def _replace(ray, actor: _Actor, spawn) -> _Actor:
        ray.kill(actor.handle, no_restart=True)
        return spawn()

    @staticmethod
    def _give_up(pending: deque[EpisodeSpec], on_result: OnResult, why: str) -> None:
        """No actor can run the episodes left (none could be placed for START_TIMEOUT_S, or
        they fail to start): each is recorded as an error, which a resumed run retries."""
        while pending:
            on_result(spec := pending.popleft(),
                      error_trajectory(spec, Termination.ERROR, why), {})
