"""A worker: one process, one browser, episodes one after another. Shared by the local and
Ray executors so both run episodes the same way."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Browser, Playwright, async_playwright

from webtraj.agents.registry import make_agent
from webtraj.browser.chromium import launch_chromium
from webtraj.browser.config import EnvConfig
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.llm.usage import UsageTracker
from webtraj.model.base import FrozenModel
from webtraj.model.trajectory import Trajectory


class WorkerConfig(FrozenModel):
    """How a worker builds its agent and browser contexts (sent to it as JSON)."""

    agent: str
    llm: str | None = None
    no_cache: bool = False
    agent_options: dict = {}
    env: EnvConfig = EnvConfig()
    scratch: str

    def workdir(self, spec: EpisodeSpec) -> Path:
        """The episode's scratch folder (artifacts and journals until the store takes them)."""
        return Path(self.scratch) / spec.trajectory_id


class EpisodeWorker:
    """Keeps one browser open across episodes and relaunches it if it dies."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.agent = make_agent(config.agent, llm=config.llm, no_cache=config.no_cache,
                                options=config.agent_options)
        self._pw: Playwright | None = None
        self._browser: Browser | None = None

    async def _ensure_browser(self) -> Browser:
        if self._pw is None:
            self._pw = await async_playwright().start()
        if self._browser is None or not self._browser.is_connected():
            self._browser = await launch_chromium(self._pw)
        return self._browser

    async def run(self, spec: EpisodeSpec) -> Trajectory:
        browser = await self._ensure_browser()
        workdir = self.config.workdir(spec)
        client = getattr(self.agent, "client", None)
        if client is not None:
            # Count this episode's model calls on their own: the parent adds them up.
            client.tracker = UsageTracker(client.tracker.prices)
        traj = await run_episode(browser, self.agent, spec, workdir, env_config=self.config.env)
        if client is not None:
            meta = {**traj.metadata, "llm_usage": client.usage().to_run_usage()}
            traj = traj.model_copy(update={"metadata": meta})
        return traj

    async def close(self) -> None:
        if self._browser is not None:
            await self._browser.close()
        if self._pw is not None:
            await self._pw.stop()


def process_main(conn, config_json: str) -> None:
    """Entry point of a local worker process: receive specs, send back trajectories."""
    asyncio.run(_serve(conn, WorkerConfig.model_validate_json(config_json)))


async def _serve(conn, config: WorkerConfig) -> None:
    loop = asyncio.get_running_loop()
    worker = EpisodeWorker(config)
    try:
        while True:
            msg = await loop.run_in_executor(None, conn.recv)
            if msg is None:
                break
            spec = EpisodeSpec.model_validate_json(msg)
            traj = await worker.run(spec)
            conn.send(traj.model_dump_json())
    finally:
        await worker.close()
