"""A worker: one process, one browser, up to `episodes_per_worker` episodes at once, each in
its own browser context with its own agent. Most of an episode is waiting (for the page, the
model, the browser's frames), so a worker with several episodes keeps its core busy. Shared by
the local and Ray executors so both run episodes the same way."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Playwright, async_playwright
from pydantic import Field

from webtraj.agents.protocol import Agent
from webtraj.agents.registry import make_agent
from webtraj.browser.chromium import launch_chromium
from webtraj.browser.config import EnvConfig
from webtraj.execute.episode import EpisodeSpec, error_trajectory, run_episode
from webtraj.model.base import FrozenModel
from webtraj.model.trajectory import Termination, Trajectory
from webtraj.model.wire import from_wire


class WorkerConfig(FrozenModel):
    """How a worker builds its agent and browser contexts (sent to it by `model.wire.to_wire`,
    which keeps the accounts' passwords: `model_dump_json` masks them)."""

    agent: str
    llm: str | None = None
    no_cache: bool = False
    agent_options: dict = {}
    env: EnvConfig = EnvConfig()
    scratch: str
    episodes_per_worker: int = Field(default=1, ge=1)

    def workdir(self, spec: EpisodeSpec) -> Path:
        """The episode's scratch folder (artifacts and journals until the store takes them)."""
        return Path(self.scratch) / spec.trajectory_id

    def downloads_in_flight(self) -> str:
        """Where the worker's browser keeps downloads in flight (in the scratch too; each
        then moves to its episode's folder)."""
        return str(Path(self.scratch) / "downloading")


class EpisodeWorker:
    """Keeps one browser open across episodes and relaunches it if it dies; each episode
    running at the same time gets an agent of its own (agents keep per-episode state; their
    model usage comes with each decision, `AgentDecision.usage`)."""

    def __init__(self, config: WorkerConfig, agent: Agent | None = None,
                 launched: asyncio.Future[tuple[Any, Any]] | None = None) -> None:
        self.config = config
        # A browser launched before this worker was made (worker_process.py): Playwright and
        # the browser, taken by the first episode; one that failed to launch is launched
        # again here, where its error reaches the episode.
        self._launched = launched
        # An agent object is given only in-process (webtraj.execute.inprocess), which runs one
        # episode at a time; workers in other processes build theirs from the spec string and
        # options, one per concurrent episode.
        self._given = agent
        self._idle: list[Agent] = [agent if agent is not None else self._make_agent()]
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._launching = asyncio.Lock()

    def _make_agent(self) -> Agent:
        return make_agent(self.config.agent, llm=self.config.llm,
                          no_cache=self.config.no_cache, options=self.config.agent_options)

    async def _ensure_browser(self) -> Browser:
        async with self._launching:
            if self._launched is not None:
                launched, self._launched = self._launched, None
                with contextlib.suppress(Exception):
                    self._pw, self._browser = await launched
            if self._pw is None:
                self._pw = await async_playwright().start()
            if self._browser is None or not self._browser.is_connected():
                self._browser = await launch_chromium(
                    self._pw, downloads_path=self.config.downloads_in_flight())
            return self._browser

    async def run(self, spec: EpisodeSpec) -> Trajectory:
        browser = await self._ensure_browser()
        agent = self._given or (self._idle.pop() if self._idle else self._make_agent())
        try:
            return await self._run(browser, agent, spec)
        finally:
            if self._given is None:
                self._idle.append(agent)

    async def _run(self, browser: Browser, agent: Agent, spec: EpisodeSpec) -> Trajectory:
        workdir = self.config.workdir(spec)
        return await run_episode(browser, agent, spec, workdir, env_config=self.config.env)

    async def close(self) -> None:
        if self._launched is not None:  # never taken: no episode came
            launched, self._launched = self._launched, None
            with contextlib.suppress(Exception):
                self._pw, self._browser = await launched
        if self._browser is not None:
            await self._browser.close()
        if self._pw is not None:
            await self._pw.stop()


async def serve(conn, config_json: bytes,
                launched: asyncio.Future[tuple[Any, Any]] | None = None) -> None:
    """A local worker process's loop (worker_process.py starts it): receive specs, run up to
    `episodes_per_worker` of them at once in the order received (the parent sends one more,
    which waits for a place: local.QUEUED), send back trajectories as their episodes end. The
    configuration comes by `model.wire` (its accounts' passwords in clear)."""
    config = from_wire(WorkerConfig, config_json)
    loop = asyncio.get_running_loop()
    worker = EpisodeWorker(config, launched=launched)
    running: set[asyncio.Task[None]] = set()
    places = asyncio.Semaphore(config.episodes_per_worker)

    async def one(spec: EpisodeSpec) -> None:
        async with places:
            try:
                traj = await worker.run(spec)
            except Exception as exc:  # the episode could not start (browser, scratch
                # folder) or died: this episode only, and the parent always hears of it.
                traj = error_trajectory(spec, Termination.ERROR,
                                        f"episode could not run: {type(exc).__name__}: {exc}",
                                        config.workdir(spec))
            conn.send(traj.model_dump_json())

    try:
        while True:
            msg = await loop.run_in_executor(None, conn.recv)
            if msg is None:
                break
            task = asyncio.create_task(one(EpisodeSpec.model_validate_json(msg)))
            running.add(task)
            task.add_done_callback(running.discard)
        if running:
            await asyncio.gather(*running)
    finally:
        await worker.close()
