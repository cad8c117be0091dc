"""The Ray executor: the same workers as actors, on a local or remote Ray cluster.

Scheduling mirrors the local executor (`episodes_per_worker` episodes per worker at a time,
a hung episode's actor killed after its timeout plus grace, a dead actor replaced once), so
both give the same per-task outcomes."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter, deque
from collections.abc import Iterable

from webtraj.execute.episode import EpisodeSpec, episode_artifacts, error_trajectory
from webtraj.execute.local import GRACE_S, OnResult, OnStart
from webtraj.execute.ray_cluster import connect
from webtraj.execute.worker import EpisodeWorker, WorkerConfig
from webtraj.model.trajectory import Termination, Trajectory


class _ActorBody:
    """Runs inside the actor process, on any node: its scratch folder is private to its node,
    and an episode's artifacts go back to the driver with its trajectory, through Ray."""

    def __init__(self, config_json: str) -> None:
        config = WorkerConfig.model_validate_json(config_json)
        scratch = tempfile.mkdtemp(prefix="webtraj-episodes-")
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
        config_json = self.config.model_dump_json()
        wanted = min(self.workers, -(-len(pending) // per_actor))
        actors = [actor_cls.remote(config_json) for _ in range(wanted)]
        running: dict = {}  # object ref -> (actor index, actor, spec, started)
        try:
            while pending or running:
                load = Counter(i for i, _, _, _ in running.values())
                for i, actor in enumerate(actors):
                    while load[i] < per_actor and pending:
                        load[i] += 1
                        spec = pending.popleft()
                        ref = actor.run.remote(spec.model_dump_json())
                        running[ref] = (i, actor, spec, time.monotonic())
                        if on_start:
                            on_start(spec, ray.get(actor.pid.remote()))
                done, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
                for ref in done:
                    i, actor, spec, _ = running.pop(ref)
                    try:
                        traj_json, artifacts = ray.get(ref)
                        traj = Trajectory.model_validate_json(traj_json)
                    except ray.exceptions.RayError as exc:
                        # The actor's node (and its scratch folder) may be gone with it. Its
                        # other episodes fail the same way: it is replaced once.
                        if actors[i] is actor:
                            actors[i] = self._replace(ray, actor, actor_cls, config_json)
                        traj = error_trajectory(spec, Termination.ERROR,
                                                f"worker died: {type(exc).__name__}")
                        artifacts = {}
                    on_result(spec, traj, artifacts)
                now = time.monotonic()
                for ref, (i, actor, spec, started) in list(running.items()):
                    if now - started > spec.timeout_s + GRACE_S:
                        running.pop(ref)
                        if actors[i] is actor:
                            actors[i] = self._replace(ray, actor, actor_cls, config_json)
                        on_result(spec, error_trajectory(
                            spec, Termination.TIMEOUT,
                            f"episode exceeded {spec.timeout_s:.0f}s; worker killed"), {})
        finally:
            for actor in actors:
                ray.kill(actor)

    @staticmethod
    def _replace(ray, actor, actor_cls, config_json: str):
        ray.kill(actor, no_restart=True)
        return actor_cls.remote(config_json)
