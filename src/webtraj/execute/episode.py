"""One episode: an agent acting on one task in its own browser context, recorded step by step.

Artifacts (step-NNN.png, final.png, network.har) go to a scratch folder that the caller hands to
the store, which copies them into the run atomically together with trajectory.json. Each step
is also journaled there as it is taken (and each finished request, by the browser layer), so
an episode whose worker is killed or hangs is stored with everything up to the failure."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import orjson
from playwright.async_api import Browser
from playwright.async_api import Error as PlaywrightError

from webtraj.agents.protocol import Agent, AgentDecision, episode_files_at
from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.browser.env_results import BrowserObservation
from webtraj.browser.har_recorder import har_from_journal, har_journal
from webtraj.browser.page_task import PageTask
from webtraj.model.action import ActionKind
from webtraj.model.base import FrozenModel
from webtraj.model.errors import InfrastructureError
from webtraj.model.exploration import Exploration
from webtraj.model.jsonfile import read_journal
from webtraj.model.redact import Redactor
from webtraj.model.run_settings import run_default
from webtraj.model.task import Task
from webtraj.model.trajectory import (
    Observation,
    PointedElement,
    Step,
    StepTimings,
    Termination,
    Trajectory,
)
from webtraj.model.usage import StepUsage, Usage

HAR_NAME = "network.har"
STEPS_JOURNAL = "steps.journal"
# The task as its page stated it (PageTask), for the record of an episode killed later.
TASK_JOURNAL = "task.journal"
# Scratch files that are folded into trajectory.json / network.har, never stored as artifacts.
JOURNALS = (STEPS_JOURNAL, TASK_JOURNAL, HAR_NAME + ".journal")
# The episode's downloads (browser/downloads.py): in its scratch folder, never in the run.
DOWNLOADS_DIR = "downloads"


class EpisodeSpec(FrozenModel):
    """What a worker needs to run one episode (sent across processes as JSON)."""

    task: Task
    trial: int = 0
    agent: str
    max_steps: int = run_default("max_steps")
    timeout_s: float = run_default("timeout_s")
    screenshots: bool = run_default("screenshots")
    html: bool = False
    # Responses whose bodies the HAR keeps (URL regexes; what the task's evaluators read).
    response_body_urls: tuple[str, ...] = ()
    # A page that states its own task (instruction, end): read in the episode's page load.
    page_task: PageTask | None = None

    @property
    def trajectory_id(self) -> str:
        return Trajectory.make_id(self.task.task_id, self.agent, self.trial)


async def _store_observation(obs: BrowserObservation, workdir: Path, stem: str,
                             config: EnvConfig) -> Observation:
    """Write the screenshot from a thread: the worker's other episodes share this loop."""
    shot = som = None
    if obs.screenshot_png:
        shot = f"{stem}.{config.screenshot_format}"
        await asyncio.to_thread((workdir / shot).write_bytes, obs.screenshot_png)
    if obs.som_png:
        som = f"{stem}.som.png"
        await asyncio.to_thread((workdir / som).write_bytes, obs.som_png)
    return obs.to_observation(screenshot=shot, som_screenshot=som)


async def _decide(agent: Agent, task: Task, obs: Observation, steps: list[Step],
                  workdir: Path) -> AgentDecision:
    try:
        with episode_files_at(workdir):  # where a vision agent finds the step's screenshot
            return await agent.act(task, obs, tuple(steps))
    except InfrastructureError:
        raise  # the agent's model (or another service) is down: the episode is an error
    except Exception as exc:  # an agent bug costs one step, not the episode
        return AgentDecision(error=f"agent raised {type(exc).__name__}: {exc}")


async def _stated_task(env: BrowserEnv, page: PageTask, task: Task, workdir: Path) -> Task:
    """The task with what its page states: the instruction when the task has none, and the
    page's facts added to its metadata (journaled, so a killed episode keeps them)."""
    parts = f"[{page.intent or 'null'}, {page.metadata or 'null'}]"
    intent, facts = await env.evaluate(parts)  # type: ignore[misc]
    update: dict[str, object] = {}
    if not task.intent.strip() and isinstance(intent, str) and intent.strip():
        update["intent"] = intent.strip()
    if isinstance(facts, dict):
        new = {k: v for k, v in facts.items() if k not in task.metadata}
        if new:
            update["metadata"] = {**task.metadata, **new}
    if not update:
        return task
    task = task.model_copy(update=update)
    (workdir / TASK_JOURNAL).write_text(task.model_dump_json(), encoding="utf-8")
    return task


async def _page_ended(env: BrowserEnv, page: PageTask | None) -> bool:
    if page is None or page.ended is None:
        return False
    try:
        return bool(await env.evaluate(page.ended))
    except PlaywrightError:  # the page is going away (a navigation): it did not say so
        return False


class StepJournal:
    """Steps appended to the scratch folder as they are taken (one JSON line each). The
    journal outlives a killed run (until the next run sweeps its scratch): each line is
    redacted as it is written, as the store redacts what it keeps."""

    def __init__(self, workdir: Path, redactor: Redactor | None = None) -> None:
        self.path = workdir / STEPS_JOURNAL
        self.redactor = redactor or Redactor()
        self.path.write_bytes(b"")

    def append(self, step: Step) -> Step:
        """Journal `step`; returns it as journaled (redacted)."""
        data = self.redactor.data(step.model_dump(mode="json", exclude_none=True))
        with open(self.path, "ab") as f:
            f.write(orjson.dumps(data) + b"\n")
        return Step.model_validate(data)


def journaled_steps(workdir: Path) -> tuple[Step, ...]:
    """The steps a killed episode journaled (a line cut by the kill is dropped)."""
    return tuple(read_journal(workdir / STEPS_JOURNAL, Step.model_validate_json))


def episode_artifacts(workdir: Path) -> dict[str, Path]:
    """The files an episode leaves for the store (screenshots, HAR, ...): regular files only,
    so neither journals nor the downloads folder ever reach the run; none when its scratch
    folder could not be made or read."""
    try:
        if not workdir.is_dir():
            return {}
        return {p.name: p for p in sorted(workdir.iterdir())
                if p.name not in JOURNALS and p.is_file() and not p.is_symlink()}
    except OSError:
        return {}


def drop_journals(workdir: Path) -> None:
    for name in JOURNALS:
        (workdir / name).unlink(missing_ok=True)


async def run_episode(browser: Browser, agent: Agent, spec: EpisodeSpec, workdir: Path,
                      *, env_config: EnvConfig | None = None) -> Trajectory:
    """Run the episode; never raises for agent or page failures (they are recorded)."""
    workdir.mkdir(parents=True, exist_ok=True)
    task = spec.task
    if not task.start_url:
        raise ValueError(f"task {task.task_id} has no start_url")
    exploration = Exploration.of(task)
    base = env_config or EnvConfig()
    sites = task.metadata.get("sites") or ([task.site] if task.site else [])
    config = base.model_copy(update={"har_path": workdir / HAR_NAME,
                                     "logins": tuple(lg for lg in base.logins
                                                     if isinstance(sites, list)
                                                     and lg.site in sites),
                                     "downloads_dir": workdir / DOWNLOADS_DIR,
                                     "screenshot": spec.screenshots, "html": spec.html,
                                     "response_body_urls": spec.response_body_urls})
    steps: list[Step] = []
    answer: str | None = None
    termination = Termination.MAX_STEPS
    error: str | None = None
    started = time.time()
    env = BrowserEnv(browser, config)
    # Steps are kept as journaled: redacted with the episode's known secrets and the values
    # typed into its password fields (in the agent's reasoning and reply too).
    redactor = Redactor(config.known_secrets())
    journal = StepJournal(workdir, redactor)
    usage = Usage()  # the agent's model calls, as its decisions report them
    obs: Observation | None = None
    page = spec.page_task
    try:
        async with asyncio.timeout(spec.timeout_s):
            bobs = await env.reset(task.start_url, ready=page.started if page else None,
                                   ready_timeout_ms=page.start_timeout_ms if page else 0)
            if page is not None:
                task = await _stated_task(env, page, task, workdir)
            obs = await _store_observation(bobs, workdir, "step-000", config)
            for t in range(spec.max_steps):
                t0, wall = time.monotonic(), time.time()
                decision = await _decide(agent, task, obs, steps, workdir)
                t_agent = time.monotonic() - t0
                if decision.usage is not None:
                    usage = usage.merge(decision.usage)
                step_error = decision.error
                next_obs = obs
                box = None
                pointed: tuple[PointedElement, ...] = ()
                timings = StepTimings(agent=t_agent)
                action = decision.action
                if action is not None:
                    result = await env.step(action)
                    step_error = step_error or result.error
                    if result.stored_action is not None:  # a password typed: masked or named
                        action = result.stored_action
                        redactor.add_secrets(env.passwords.values)
                    box, pointed = result.element_box, result.pointed
                    t_store = time.monotonic()
                    next_obs = await _store_observation(result.observation, workdir,
                                                        f"step-{t + 1:03d}", config)
                    timings = (result.timings or timings).model_copy(update={
                        "agent": t_agent, "storage": time.monotonic() - t_store})
                steps.append(journal.append(Step(
                    index=t, observation=obs, action=action, reasoning=decision.reasoning,
                    raw_output=decision.raw_output, started_at=wall,
                    duration_s=time.monotonic() - t0, error=step_error, element_box=box,
                    pointed=pointed, timings=timings, usage=StepUsage.of(decision.usage),
                    view=decision.view)))
                obs = next_obs
                if decision.action is not None and decision.action.kind is ActionKind.STOP:
                    termination = Termination.STOP
                    answer = decision.action.value
                    break
                if decision.action is not None and await _page_ended(env, page):
                    termination = Termination.PAGE_ENDED
                    break
    except TimeoutError:
        termination, error = Termination.TIMEOUT, f"episode timed out after {spec.timeout_s}s"
    except InfrastructureError as exc:
        termination, error = Termination.ERROR, f"infrastructure failure: {exc}"
        if exc.usage is not None:  # the calls that failed on the way still count
            usage = usage.merge(exc.usage)
    except Exception as exc:  # a browser crash ends this episode only
        termination, error = Termination.ERROR, f"{type(exc).__name__}: {exc}"
    finally:
        closed = await env.close()
        drop_journals(workdir)
        har = workdir / HAR_NAME
        if env.passwords.values and har.exists():  # a typed password may have been sent
            await asyncio.to_thread(lambda: har.write_bytes(redactor.json_bytes(
                har.read_bytes())))
    # What comes after a password was typed is kept without its value, as the steps are.
    final = obs if obs is None or not env.passwords.values else Observation.model_validate(
        redactor.data(obs.model_dump(mode="json", exclude_none=True)))
    if answer and env.passwords.values:
        answer = redactor.text(answer)
    return Trajectory(
        trajectory_id=spec.trajectory_id, task=task, agent=spec.agent, trial=spec.trial,
        steps=tuple(steps), final_observation=final, answer=answer,
        network_trace=HAR_NAME if (workdir / HAR_NAME).exists() else None,
        termination=termination, error=error, started_at=started, finished_at=time.time(),
        blocked_requests=closed.blocked, refused_tunnels=closed.refused_tunnels,
        dialogs=closed.dialogs, downloads=closed.downloads,
        usage=usage if usage.models else None, exploration=exploration)


def error_trajectory(spec: EpisodeSpec, termination: Termination, message: str,
                     workdir: Path | None = None) -> Trajectory:
    """The record of an episode whose worker was killed or died: the steps and requests it
    journaled up to the failure, with the reason."""
    steps: tuple[Step, ...] = ()
    har = False
    task = spec.task
    if workdir is not None:
        try:
            stated = workdir / TASK_JOURNAL
            if stated.is_file():
                with contextlib.suppress(ValueError):  # cut by the kill: the spec's task
                    task = Task.model_validate_json(stated.read_bytes())
            steps = journaled_steps(workdir)
            har_from_journal(har_journal(workdir / HAR_NAME), workdir / HAR_NAME)
            drop_journals(workdir)
            har = (workdir / HAR_NAME).exists()
        except OSError as exc:  # the scratch folder itself failed: the reason is enough
            message = f"{message} (its scratch folder could not be read: {exc.strerror})"
    return Trajectory(trajectory_id=spec.trajectory_id, task=task, agent=spec.agent,
                      trial=spec.trial, steps=steps, termination=termination, error=message,
                      network_trace=HAR_NAME if har else None, finished_at=time.time())
