"""The in-process executor: episodes one after another in this process, with an agent object
the caller already built (the Python API's `run(agent=obj)` for an agent that cannot be
rebuilt in a worker process, e.g. one defined in a notebook). The episode's own timeout
still applies; there is no worker to kill, so a hung agent is cancelled by that timeout."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable

from webtraj.agents.protocol import Agent
from webtraj.execute.episode import EpisodeSpec, episode_artifacts, error_trajectory
from webtraj.execute.local import OnResult, OnStart
from webtraj.execute.worker import EpisodeWorker, WorkerConfig
from webtraj.model.trajectory import Termination


class InProcessExecutor:
    def __init__(self, config: WorkerConfig, agent: Agent) -> None:
        self.config = config
        self.agent = agent

    def run(self, specs: Iterable[EpisodeSpec], on_result: OnResult,
            on_start: OnStart | None = None) -> None:
        pending = list(specs)
        if not pending:
            return

        async def main() -> None:
            worker = EpisodeWorker(self.config, agent=self.agent)
            try:
                for spec in pending:
                    if on_start:
                        on_start(spec, os.getpid())
                    try:
                        traj = await worker.run(spec)
                    except Exception as exc:  # the browser died: this episode only
                        traj = error_trajectory(spec, Termination.ERROR,
                                                f"{type(exc).__name__}: {exc}",
                                                self.config.workdir(spec))
                    on_result(spec, traj, episode_artifacts(self.config.workdir(spec)))
            finally:
                await worker.close()

        asyncio.run(main())
