"""Recording one task: the person acts in a real browser tab, webtraj observes and writes
the trajectory.

Observing is continuous rather than intercepting: after the person's input stops for
`idle_ms` and the page settles (the same settle as `webtraj run`), the tab is observed
(screenshot, accessibility tree, URL, tabs, HTML with --html), and each input event is
attributed to the last observation whose capture ended before the event. Input cannot be
held back while a page is read, so an action taken within `idle_ms` of the previous one is
attributed to the observation before that one (the panel shows "ready" when the latest
observation is current). Steps are handed to `on_step` as they are made (the run journals
them), the HAR is recorded by the browser layer, and every way a recording can end (answer,
give up, browser or last tab closed, timeout, a crash) still returns the trajectory."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.browser.env_results import BrowserObservation
from webtraj.browser.passwords import mask_values
from webtraj.model.action import Action, ActionKind
from webtraj.model.episode import RecordingNotes
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step, StepTimings, Termination, Trajectory
from webtraj.record.builder import ActionBuilder, Recorded, Seen
from webtraj.record.events import PageEvent
from webtraj.record.history import HistoryState, classify
from webtraj.record.panel import FINISH_HOTKEY, Panel
from webtraj.record.script import BINDING, CAPTURE_SCRIPT
from webtraj.record.settings import RecordSettings

HUMAN = "human"
# A navigation this soon after the person used the page is taken as its consequence.
INPUT_CAUSES_S = 0.5
# How long the last tab's closing waits to see whether the whole browser is going.
BROWSER_GOING_S = 10.0
BROWSER_CLOSED = "the browser was closed before the task was finished"
# Patience for one CDP question about a tab (a closing tab may never answer).
CDP_TIMEOUT_S = 3.0


class _End(Exception):
    def __init__(self, termination: Termination, answer: str | None = None,
                 error: str | None = None) -> None:
        super().__init__(error or termination.value)
        self.termination, self.answer, self.error = termination, answer, error


class Recorder:
    """Records one task in a fresh browser context of `browser`."""

    def __init__(self, browser: Browser, task: Task, workdir: Path, config: EnvConfig,
                 panel: Panel, settings: RecordSettings, *, trial: int = 0,
                 on_step: Callable[[Step], None] | None = None) -> None:
        self.browser, self.task, self.workdir = browser, task, workdir
        self.config = config.model_copy(update={
            "har_path": workdir / "network.har", "html": settings.html,
            "screenshot": settings.screenshots})
        self.panel, self.settings, self.trial = panel, settings, trial
        self.on_step = on_step
        self.env = BrowserEnv(browser, self.config)
        self.queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.builder = ActionBuilder(self._emit)
        self.steps: list[Step] = []
        self.seen: list[Seen] = []
        self.observations: dict[int, Observation] = {}
        # The tab each observation was taken of.
        self.seen_tab: dict[int, Page] = {}
        self.dirty = False
        self.last_input = 0.0
        self.history: dict[Page, HistoryState] = {}
        self.sessions: dict[Page, CDPSession] = {}
        # The tabs in the order the person sees them (webtraj's tab indexes), and the one
        # the person is on (kept here: the tab manager moves on when a tab closes, before
        # the recorder hears of it).
        self.order: list[Page] = []
        self.current: Page | None = None
        self.notes: list[str] = []
        # (role, name) of the password fields typed in: their values are masked.
        self.secret_fields: set[tuple[str, str]] = set()
        # Set when the recording was cancelled (Control+C): no further task is recorded.
        self.interrupted = False

    # --- wiring ------------------------------------------------------------------------
    async def _prepare(self, context: BrowserContext) -> None:
        await context.expose_binding(
            BINDING, lambda source, payload: self.queue.put_nowait(
                ("event", source.get("page"), payload)))
        await context.add_init_script(CAPTURE_SCRIPT)
        context.on("page", lambda page: self.queue.put_nowait(("opened", page)))
        context.on("close", lambda _ctx: self.queue.put_nowait(("gone",)))

    async def _track(self, page: Page) -> None:
        self.order.append(page)
        self.current = page  # a new tab, popup or not, is the one in front
        page.on("framenavigated", lambda frame: frame == page.main_frame and
                self._navigated(page))
        page.on("close", lambda p: self.queue.put_nowait(("closed", p)))
        try:
            session = await asyncio.wait_for(page.context.new_cdp_session(page), CDP_TIMEOUT_S)
            self.sessions[page] = session
            self.history[page] = HistoryState.of(await asyncio.wait_for(
                session.send("Page.getNavigationHistory"), CDP_TIMEOUT_S))
        except (PlaywrightError, TimeoutError):
            self.history[page] = HistoryState(index=0, ids=[])

    def _navigated(self, page: Page) -> None:
        """Ask for the tab's history now: by the time the loop gets to this navigation, the
        person may have moved on (back right after a click that navigated)."""
        session = self.sessions.get(page)
        if session is None:
            return
        reply = asyncio.ensure_future(session.send("Page.getNavigationHistory"))
        self.queue.put_nowait(("nav", page, time.time(), reply))

    def panel_message(self, message: dict[str, Any]) -> None:
        self.queue.put_nowait(("panel", message))

    # --- observing ---------------------------------------------------------------------
    def _add(self, bobs: BrowserObservation) -> Seen:
        bobs = bobs.model_copy(update={"axtree": mask_values(bobs.axtree, self.secret_fields)})
        number = len(self.seen)
        shot = None
        if bobs.screenshot_png:
            shot = f"obs-{number:03d}.{self.config.screenshot_format}"
            (self.workdir / shot).write_bytes(bobs.screenshot_png)
        self.observations[number] = bobs.to_observation(screenshot=shot)
        seen = Seen(number=number, axtree=bobs.axtree, taken_at=time.time())
        self.seen.append(seen)
        if self.env.tabs is not None and self.env.tabs.active is not None:
            self.seen_tab[number] = self.env.tabs.active
        return seen

    async def _observe(self) -> None:
        if self.env.tabs is None or not self.env.tabs.pages:
            raise _End(Termination.ERROR, error="every tab was closed before the task was "
                       "finished")
        await self.panel.status("observing", len(self.steps), "reading the page...")
        try:
            self._add(await self.env.observe_settled())
        except PlaywrightError as exc:
            if not self.browser.is_connected():
                raise _End(Termination.ERROR, error=BROWSER_CLOSED) from None
            self.notes.append(f"an observation failed: {str(exc).splitlines()[0]}")
            return
        self.dirty = False
        await self.panel.status("ready", len(self.steps),
                                f"{len(self.steps)} step(s) recorded; ready",
                                observations=len(self.seen))

    def _seen_for(self, at: float, page: Page | None = None) -> Seen:
        """The last observation whose capture ended before `at` (of `page`, when it was
        observed: input in a tab the person switched to without the browser saying so is
        attributed to what that tab last showed)."""
        if page is not None:
            for seen in reversed(self.seen):
                if seen.taken_at <= at and self.seen_tab.get(seen.number) is page:
                    return seen
        for seen in reversed(self.seen):
            if seen.taken_at <= at:
                return seen
        return self.seen[0]

    def _emit(self, rec: Recorded) -> None:
        step = Step(index=len(self.steps), observation=self.observations[rec.seen.number],
                    action=rec.action, started_at=rec.started_at, error=rec.error,
                    element_box=rec.element_box,
                    timings=StepTimings(agent=max(0.0, rec.started_at - rec.seen.taken_at)))
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)

    # --- events ------------------------------------------------------------------------
    def _tab_index(self, page: Page) -> int | None:
        return self.order.index(page) if page in self.order else None

    def _switch_to(self, page: Page, at: float) -> None:
        tabs = self.env.tabs
        index = self._tab_index(page)
        if tabs is None or index is None or self.current is page or page.is_closed():
            return
        self.builder.other(Action(kind=ActionKind.TAB_FOCUS, tab_index=index),
                           self._seen_for(at), at)
        tabs.active = self.current = page

    async def _on_event(self, page: Page | None, payload: Any) -> None:
        try:
            ev = PageEvent.model_validate(payload)
        except ValidationError as exc:
            self.notes.append(f"an input event could not be read: {exc.errors()[0]['msg']}")
            return
        if page is None or self._tab_index(page) is None:
            return
        if ev.type == "key" and ev.key == FINISH_HOTKEY:
            raise _End(Termination.STOP, answer=await self.panel.answer())
        self._switch_to(page, ev.time)
        if ev.type == "input" and ev.target and ev.target.input_type == "password":
            self.secret_fields.add((ev.target.role, ev.target.name))
        if ev.type != "focus":
            self.builder.event(ev, self._seen_for(ev.time, page))
            self.last_input = time.time()
        self.dirty = True

    async def _on_nav(self, page: Page, at: float, asked: asyncio.Future) -> None:
        try:
            reply = await asyncio.wait_for(asked, CDP_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            return
        self._history_moved(page, at, reply)

    async def _poll_history(self) -> None:
        """While the person is idle, compare the front tab's history with the last one seen:
        a navigation Chromium did not report as one (a page restored from the back-forward
        cache, a refused one) is still recorded and observed."""
        page = self.current
        session = self.sessions.get(page) if page is not None else None
        if page is None or session is None:
            return
        try:
            reply = await asyncio.wait_for(session.send("Page.getNavigationHistory"),
                                           CDP_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            return
        if HistoryState.of(reply) != self.history.get(page):
            self._history_moved(page, time.time(), reply)

    def _history_moved(self, page: Page, at: float, reply: dict[str, Any]) -> None:
        before = self.history.get(page, HistoryState(index=0, ids=[]))
        move, self.history[page] = classify(before, reply, at=at,
                                            after_input=at - self.last_input < INPUT_CAUSES_S)
        self.dirty = True
        if move.kind == "follow":
            return
        self._switch_to(page, at)
        seen = self._seen_for(at)
        if move.kind == "goto":
            reason = self.env.allowlist.verdict(move.url) if self.env.allowlist else None
            error = None if reason is None else (
                f"{move.url} is outside the allowlist ({reason}): the browser refused it")
            self.builder.other(Action(kind=ActionKind.GOTO, value=move.url), seen, at, error)
            return
        kind = ActionKind.GO_BACK if move.kind == "back" else ActionKind.GO_FORWARD
        for _ in range(move.steps):
            self.builder.other(Action(kind=kind), seen, at)

    async def _on_opened(self, page: Page) -> None:
        await self._track(page)
        self.dirty = True
        opener = None
        with contextlib.suppress(PlaywrightError, TimeoutError):
            opener = await asyncio.wait_for(page.opener(), CDP_TIMEOUT_S)
        if opener is None:  # the person opened a tab (a link's new tab follows its click)
            self.builder.other(Action(kind=ActionKind.NEW_TAB), self._seen_for(time.time()),
                               time.time())

    async def _browser_going(self) -> bool:
        """Whether the browser disconnects within BROWSER_GOING_S: polled, so a busy machine
        (a slow disconnection) is told apart from a closed last tab by the outcome, not by a
        fixed wait."""
        deadline = time.monotonic() + BROWSER_GOING_S
        while self.browser.is_connected():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def _on_closed(self, page: Page) -> None:
        """The person closed a tab: focus it first when it was not the active one (webtraj's
        `close_tab` closes the active tab). The last tab closing may be the whole browser
        going: that is told apart by waiting a moment for the disconnection."""
        self.sessions.pop(page, None)
        self.history.pop(page, None)
        if page not in self.order:
            return
        if self.order == [page] and await self._browser_going():
            raise _End(Termination.ERROR, error=BROWSER_CLOSED)
        at = time.time()
        seen = self._seen_for(at)
        tabs = self.env.tabs
        if page is not self.current:
            self.builder.other(Action(kind=ActionKind.TAB_FOCUS,
                                      tab_index=self.order.index(page)), seen, at)
        index = self.order.index(page)
        self.order.remove(page)
        if tabs is not None and page in tabs.pages:
            tabs._closed(page)  # noqa: SLF001 - the same bookkeeping as a close by webtraj
        self.dirty = True
        self.builder.other(Action(kind=ActionKind.CLOSE_TAB), seen, at)
        if not self.order:
            raise _End(Termination.ERROR, error="every tab was closed before the task was "
                       "finished")
        # webtraj's close_tab leaves the tab that took the closed one's place in front.
        self.current = self.order[min(index, len(self.order) - 1)]
        if tabs is not None:
            tabs.active = self.current

    async def _dispatch(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "event":
            await self._on_event(item[1], item[2])
        elif kind == "nav":
            await self._on_nav(item[1], item[2], item[3])
        elif kind == "opened":
            await self._on_opened(item[1])
        elif kind == "closed":
            await self._on_closed(item[1])
        elif kind == "gone":
            raise _End(Termination.ERROR, error=BROWSER_CLOSED)
        elif kind == "panel":
            message = item[1]
            if message.get("kind") == "give_up":
                raise _End(Termination.ERROR, error="the person gave up on the task")
            raise _End(Termination.STOP, answer=str(message.get("answer") or ""))

    async def _loop(self) -> None:
        idle = self.settings.idle_ms / 1000
        while True:
            try:
                item = await asyncio.wait_for(self.queue.get(), timeout=idle)
            except TimeoutError:
                await self._poll_history()
                if self.dirty:
                    await self._observe()
                continue
            await self._dispatch(item)

    # --- the whole recording -----------------------------------------------------------
    async def record(self) -> Trajectory:
        """Record until the person ends the task or the browser goes; never raises for
        anything the person or the page did."""
        task = self.task
        if not task.start_url:
            raise ValueError(f"task {task.task_id} has no start_url")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.browser.on("disconnected", lambda _b: self.queue.put_nowait(("gone",)))
        started = time.time()
        end = _End(Termination.ERROR, error="the recording ended unexpectedly")
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                self._add(await self.env.reset(task.start_url, prepare=self._prepare))
                if self.env.tabs is not None:
                    for page in list(self.env.tabs.pages):
                        await self._track(page)
                while not self.queue.empty():  # the start page's own events
                    item = self.queue.get_nowait()
                    if item[0] in ("event", "panel", "gone"):
                        await self._dispatch(item)
                await self.panel.status("ready", 0, "ready: do the task, then Finish",
                                        observations=len(self.seen))
                await self._loop()
        except _End as done:
            end = done
        except TimeoutError:
            end = _End(Termination.TIMEOUT,
                       error=f"the recording timed out after {self.settings.timeout_s}s")
        except PlaywrightError as exc:
            gone = not self.browser.is_connected()
            end = _End(Termination.ERROR, error=BROWSER_CLOSED if gone else
                       f"browser error: {str(exc).splitlines()[0]}")
        except asyncio.CancelledError:  # Control+C: store what was recorded, then stop
            self.interrupted = True
            end = _End(Termination.ERROR, error="the recording was interrupted")
        return await self._finish(end, started)

    async def _finish(self, end: _End, started: float) -> Trajectory:
        self.builder.flush()
        if end.termination is Termination.STOP and self.seen:
            at = time.time()
            self.builder.other(Action(kind=ActionKind.STOP, value=end.answer or ""),
                               self._seen_for(at), at)
        final = self.observations.get(len(self.seen) - 1) if self.seen else None
        if end.termination is Termination.STOP and self.browser.is_connected():
            with contextlib.suppress(Exception):  # keep the last observation we had
                final = self.observations[self._add(await self.env.observe_settled()).number]
        closed = await self.env.close()
        self._drop_unused_screenshots(final)
        har = self.workdir / "network.har"
        return Trajectory(
            trajectory_id=Trajectory.make_id(self.task.task_id, HUMAN, self.trial),
            task=self.task, agent=HUMAN, trial=self.trial, steps=tuple(self.steps),
            final_observation=final,
            answer=end.answer if end.termination is Termination.STOP else None,
            network_trace="network.har" if har.exists() else None,
            termination=end.termination, error=end.error, started_at=started,
            finished_at=time.time(), blocked_requests=closed.blocked,
            refused_tunnels=closed.refused_tunnels, dialogs=closed.dialogs,
            recording=RecordingNotes(observations=len(self.seen),
                                     idle_ms=self.settings.idle_ms, notes=tuple(self.notes)))

    def _drop_unused_screenshots(self, final: Observation | None) -> None:
        used = {s.observation.screenshot for s in self.steps}
        if final is not None:
            used.add(final.screenshot)
        for obs in self.observations.values():
            if obs.screenshot and obs.screenshot not in used:
                (self.workdir / obs.screenshot).unlink(missing_ok=True)
