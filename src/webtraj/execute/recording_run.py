"""`webtraj record`: a person does tasks in a real browser; each becomes a trajectory of
agent `human` in a run, stored and scored exactly as `webtraj run` stores and scores.

The run directory, run.json (settings with agent `human`, the sandbox date, seed and URLs),
index, redaction and atomic writes are the run store's; scoring is the run's `ScoringStage`;
the sandbox is served as for `--suite` or a task file naming its sites. Steps are journaled
as they are made in a scratch folder outside the run (as a worker's are), so an interrupted
recording is stored with what was recorded: the browser closing ends the task at once; a
recorder that was killed leaves its journal in the run's scratch folder (one per run, kept
outside it: nothing unredacted in the run), which the next `webtraj record` into that run
stores first as an error with the steps it journaled. Recording the same task again adds a
trial."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from webtraj.browser.config import EnvConfig
from webtraj.evaluate.run_scoring import RunEnvironments, ScoringStage, unscored_trajectories
from webtraj.execute.episode import EpisodeSpec, StepJournal, episode_artifacts, error_trajectory
from webtraj.execute.resume import open_run_for, record_served_date, tasks_digest
from webtraj.model import InputError, RunInfo, Score, Task, Termination, Trajectory
from webtraj.model.base import FrozenModel
from webtraj.model.run import RunConfig, RunDefinition
from webtraj.record.panel import Panel
from webtraj.record.session import HUMAN, Recorder, RecordSettings
from webtraj.store import RunStore


class BrowserWindow(FrozenModel):
    """How the recording browser is shown: headed when a display exists (unless told
    otherwise), and reachable over CDP on `cdp_port` for another program to drive."""

    headed: bool | None = None
    cdp_port: int | None = None

    def launch_headed(self) -> bool:
        return self.headed if self.headed is not None else bool(os.environ.get("DISPLAY"))


class RecordedTask(FrozenModel):
    """What the CLI shows after each task."""

    trajectory_id: str
    termination: str | None
    steps: int
    error: str | None
    scores: dict[str, float | None]


INTERRUPTED = ("the recorder ended before the task was finished (killed or crashed); "
               "the steps it had recorded are kept")


class RecordingScratch:
    """The run's scratch folder for recordings in progress: one per run, outside it, used
    only while the recorder holds the run's write lock (store.lock; so by one recorder at a
    time), and kept when the recorder is killed so the next one can store what it
    journaled."""

    def __init__(self, out: Path) -> None:
        digest = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:16]
        self.root = Path(tempfile.gettempdir()) / f"webtraj-record-{digest}"

    def __enter__(self) -> RecordingScratch:
        self.root.mkdir(mode=0o700, exist_ok=True)
        st = self.root.lstat()
        if not self.root.is_dir() or self.root.is_symlink() or st.st_uid != os.getuid() \
                or st.st_mode & 0o077:
            raise InputError(f"the recording scratch folder {self.root} is not a private "
                             "folder of this user; remove it and record again", field="out")
        return self

    def __exit__(self, *exc: object) -> None:
        """Removed once every task begun here is stored; otherwise kept for recovery."""
        if not any(self.root.glob("*.spec.json")):
            shutil.rmtree(self.root, ignore_errors=True)

    def begin(self, spec: EpisodeSpec) -> Path:
        """The task's workdir; its spec is written beside it first, for recovery."""
        workdir = self.root / spec.trajectory_id
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        spec_path = self.root / f"{spec.trajectory_id}.spec.json"
        part = spec_path.with_suffix(".part")
        part.write_text(spec.model_dump_json())
        part.replace(spec_path)
        return workdir

    def end(self, spec: EpisodeSpec) -> None:
        shutil.rmtree(self.root / spec.trajectory_id, ignore_errors=True)
        (self.root / f"{spec.trajectory_id}.spec.json").unlink(missing_ok=True)

    def interrupted(self) -> list[tuple[EpisodeSpec, Path]]:
        """The tasks a killed recorder left, with their workdirs."""
        found = []
        for path in sorted(self.root.glob("*.spec.json")):
            with contextlib.suppress(OSError, ValueError):
                found.append((EpisodeSpec.model_validate_json(path.read_bytes()),
                              self.root / path.name.removesuffix(".spec.json")))
        return found


def url_task(url: str, intent: str) -> Task:
    """A one-off task for `--url URL --intent TEXT`."""
    if not re.match(r"^https?://", url):
        raise InputError(f"--url must be an http(s) URL, got {url!r}", field="url")
    if not intent.strip():
        raise InputError("--intent must not be empty", field="intent")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", intent.lower()).strip("-")[:40] or "task"
    return Task(task_id=f"demo.{slug}", intent=intent.strip(), start_url=url)


def _tasks(stack: ExitStack, store: RunStore, config: RunConfig,
           extra: list[Task]) -> tuple[list[Task], dict[str, str] | None]:
    from webtraj.execute.run import select_tasks
    from webtraj.execute.suites import SuiteSession, suite_of_config

    suite = suite_of_config(config)
    session = (suite.open(stack, store, config) if config.suite or config.tasks_file
               else SuiteSession(tasks=extra))
    selected, problems, _ = select_tasks(session, suite, config)
    problems = [*session.problems, *problems]
    if not selected:
        raise InputError("no task to record" + (f": {problems[0]}" if problems else ""))
    return selected, session.session_urls


def execute_recording(config: RunConfig, out: str | Path, *, window: BrowserWindow,
                      settings: RecordSettings, url_tasks: list[Task] | None = None,
                      command: str = "",
                      on_task: Callable[[RecordedTask], None] | None = None) -> RunStore:
    """Record each selected task in turn into the run at `out`; returns the open store."""
    config = config.model_copy(update={"agent": HUMAN})
    out = Path(out)
    definition = RunDefinition.of(config, kind="record",
                                  tasks_digest=tasks_digest(config.tasks_file))
    store = open_run_for(out, RunInfo(name=out.name, command=command, seed=config.seed,
                                      settings=config), definition, command=command)
    try:
        return _record(store, config, out, window=window, settings=settings,
                       url_tasks=url_tasks, on_task=on_task)
    except BaseException:
        store.abandon()  # a new run with no recording leaves nothing of its own
        raise


def _record(store: RunStore, config: RunConfig, out: Path, *, window: BrowserWindow,
            settings: RecordSettings, url_tasks: list[Task] | None,
            on_task: Callable[[RecordedTask], None] | None) -> RunStore:
    with ExitStack() as stack:
        scratch = stack.enter_context(RecordingScratch(out))
        tasks, session_urls = _tasks(stack, store, config, url_tasks or [])
        record_served_date(store)
        envs = RunEnvironments(store.info)
        scored: dict[str, list[Score]] = {}
        stage = None
        if config.evaluate:
            stage = stack.enter_context(ScoringStage(
                out, envs, config.evaluators or None,
                on_scored=lambda t, s: scored.__setitem__(t.trajectory_id, s)))
            for tid in unscored_trajectories(store):  # an interrupted session's last task
                stage.submit(store.load_trajectory(tid), store.trajectory_dir(tid))
        env = EnvConfig(allowed_origins=config.allow_origins)

        def store_one(traj: Trajectory, workdir: Path) -> None:
            if session_urls is not None:
                traj = traj.model_copy(update={"site_urls": session_urls})
            folder = store.add_trajectory(traj, episode_artifacts(workdir), replace=True)
            if stage is not None:
                stage.submit(traj, folder)

        for spec, workdir in scratch.interrupted():
            if (spec.task.task_id, spec.trial) not in store.completed(agent=HUMAN):
                store_one(error_trajectory(spec, Termination.ERROR, INTERRUPTED, workdir),
                          workdir)
            scratch.end(spec)
        done = store.completed(agent=HUMAN)
        asyncio.run(_record_all(tasks, done, scratch, env, window, settings, store_one))
        if stage is not None:
            stage.close()
        if on_task is not None:
            for row in store.rows(agent=HUMAN):
                traj = store.load_trajectory(row.trajectory_id)
                on_task(RecordedTask(
                    trajectory_id=traj.trajectory_id, termination=traj.termination,
                    steps=len(traj.steps), error=traj.error,
                    scores={s.evaluator: s.value for s in scored.get(traj.trajectory_id, [])}))
    return store


async def _record_all(tasks: list[Task], done: set[tuple[str, int]], scratch: RecordingScratch,
                      env: EnvConfig, window: BrowserWindow, settings: RecordSettings,
                      store_one: Callable[[Trajectory, Path], None]) -> None:
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import chromium_path, launch_chromium

    args = [f"--remote-debugging-port={window.cdp_port}"] if window.cdp_port else []
    async with async_playwright() as pw:
        # A person's browser is the full one, headless or not: the headless shell sometimes
        # sends the page a mouse move to (0, 0) that no one made, and it would be recorded.
        browser = await launch_chromium(pw, headless=not window.launch_headed(), args=args,
                                        executable_path=chromium_path(headless=False))
        messages: list[Recorder] = []
        panel = await Panel(browser, lambda m: messages[-1].panel_message(m)
                            if messages else None).open()
        try:
            for n, task in enumerate(tasks, 1):
                if not browser.is_connected():
                    break
                trial = next(k for k in range(len(done) + 1) if (task.task_id, k) not in done)
                spec = EpisodeSpec(task=task, trial=trial, agent=HUMAN, html=settings.html,
                                   timeout_s=settings.timeout_s,
                                   screenshots=settings.screenshots)
                workdir = scratch.begin(spec)
                journal = StepJournal(workdir)
                recorder = Recorder(browser, task, workdir, env, panel, settings, trial=trial,
                                    on_step=journal.append)
                messages.append(recorder)
                await panel.show_task(task.intent, f"Task {n} of {len(tasks)}: {task.task_id}")
                traj = await recorder.record()
                store_one(traj, workdir)  # the journals are not artifacts
                scratch.end(spec)
                if recorder.interrupted:
                    raise asyncio.CancelledError  # stored; Control+C ends the session
        finally:
            await panel.close()
            if browser.is_connected():
                await browser.close()
