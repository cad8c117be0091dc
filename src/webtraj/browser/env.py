"""The episode environment: one browser context per episode, observe / step / close.

    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        async with BrowserEnv(browser, EnvConfig(har_path=out / "network.har")) as env:
            obs = await env.reset(task.start_url)
            while not done:
                result = await env.step(agent_action(obs))
                obs, done = result.observation, result.done
        episode = env.result            # HAR path, blocked requests, dialogs, downloads

`close()` always runs (context manager / finally), so the HAR is written even when the
episode raises or is cancelled; if Chromium itself died, a HAR rebuilt from request events is
written instead (see har_recorder.py).

Element ids in observations are Playwright aria refs shown as numbers (see axtree.py): the same
element keeps its id across steps while its role and accessible name stay the same (an element
that is renamed gets a new id, and the old one is refused, never sent to another element);
ids restart with each new document, as in WebArena. `env.locator(id)` gives the Playwright
locator behind an id.

Failures of an action (no such id, element not interactable, timeout, blocked goto) are
returned in `StepOutcome.error`; `step` raises only when the browser itself is gone.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType

from playwright.async_api import Browser, BrowserContext, Locator, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.browser.actions import ActionFailed, ActionRunner
from webtraj.browser.allowlist import OriginAllowlist, normalize_origin
from webtraj.browser.config import EnvConfig
from webtraj.browser.downloads import DownloadKeeper
from webtraj.browser.env_results import (
    BlockedRequest,
    BrowserObservation,
    DownloadRecord,
    EpisodeResult,
    StepOutcome,
)
from webtraj.browser.har_recorder import HarFallback, RequestBodies, ResponseBodies, har_journal
from webtraj.browser.marks import LISTENER_SCRIPT, MARK_ATTRIBUTE
from webtraj.browser.observe import HIDE_CARET_SCRIPT, capture
from webtraj.browser.passwords import PasswordMemory
from webtraj.browser.reach import start_page_problem
from webtraj.browser.refusal import RefusingProxy
from webtraj.browser.settle import ACTIVITY_SCRIPT, NetworkMonitor, settle
from webtraj.browser.shield import PageShield
from webtraj.browser.tabs import TabManager
from webtraj.model.action import ELEMENT_KINDS, Action, ActionKind
from webtraj.model.errors import InfrastructureError
from webtraj.model.trajectory import ElementBox, PointedElement, StepTimings

# What is under a point: the element, its box, text and the id marked on it or around it.
_AT_POINT = """([points, attr]) => points.map(([x, y]) => {
  const e = document.elementFromPoint(x, y);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  const marked = e.closest('[' + attr + ']');
  return {tag: e.tagName.toLowerCase(), mark: marked ? marked.getAttribute(attr) : null,
          text: (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 120),
          box: [r.x, r.y, r.width, r.height]};
})"""


class EnvClosedError(RuntimeError):
    """`observe` or `step` after `close()`, or before `reset()`."""


class PageNotReady(RuntimeError):
    """The start page never reached the state `reset(ready=...)` waits for."""


class BrowserEnv:
    """One episode in its own browser context (cookies, storage and HAR are per episode)."""

    def __init__(self, browser: Browser, config: EnvConfig | None = None) -> None:
        self.browser = browser
        self.config = config or EnvConfig()
        self.context: BrowserContext | None = None
        self.tabs: TabManager | None = None
        self.allowlist: OriginAllowlist | None = None
        self._proxy: RefusingProxy | None = None
        self._tunnels: list[BlockedRequest] = []
        self._runner: ActionRunner | None = None
        self._monitor = NetworkMonitor()
        self._har_fallback = HarFallback()
        self._bodies = RequestBodies()
        self._responses = ResponseBodies()
        self._downloads: DownloadKeeper | None = None
        self._steps = 0
        self._dialogs_seen = 0
        self._boxes: dict[str, tuple[float, float, float, float]] = {}
        self._error: str | None = None
        self.result: EpisodeResult | None = None
        # Values the episode's password fields held or were typed with (passwords.py).
        self.passwords = PasswordMemory(self.config.named_secrets())
        self._stored_value: str | None = None

    async def __aenter__(self) -> BrowserEnv:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is not None and self._error is None:
            self._error = f"{type(exc).__name__}: {exc}"
        await self.close()

    async def reset(self, start_url: str, *,
                    prepare: Callable[[BrowserContext], Awaitable[None]] | None = None,
                    ready: str | None = None, ready_timeout_ms: int = 10_000
                    ) -> BrowserObservation:
        """Open a fresh context, go to `start_url` and return the first observation.
        `prepare` runs on the new context before its first page opens (the recorder's
        capture script and bindings); the observation waits until the JavaScript expression
        `ready` is truthy in the page (a page that starts its task itself), else
        `PageNotReady` names the page."""
        if self.context is not None:
            await self.close()
            self.result = None
        cfg = self.config
        # The start page's origin is always reachable; others only when named.
        origins = tuple(dict.fromkeys((normalize_origin(start_url), *cfg.allowed_origins)))
        self.allowlist = OriginAllowlist(origins)
        # Whatever escapes request interception goes to a proxy that forwards nothing.
        self._proxy = await RefusingProxy(self.allowlist).start()
        har: dict[str, object] = {}
        if cfg.har_path is not None:
            Path(cfg.har_path).parent.mkdir(parents=True, exist_ok=True)
            har = {"record_har_path": str(cfg.har_path), "record_har_content": cfg.har_content,
                   "record_har_mode": "full"}
        self.context = await self.browser.new_context(
            viewport={"width": cfg.viewport_width, "height": cfg.viewport_height},
            device_scale_factor=cfg.device_scale_factor, locale=cfg.locale,
            timezone_id=cfg.timezone_id, service_workers="block",
            accept_downloads=cfg.downloads_dir is not None,
            proxy=self._proxy.playwright_proxy(),  # type: ignore[arg-type]
            **har)  # type: ignore[arg-type]
        self.context.set_default_timeout(cfg.action_timeout_ms)
        self.context.set_default_navigation_timeout(cfg.navigation_timeout_ms)
        self._monitor = NetworkMonitor()
        await self.context.add_init_script(ACTIVITY_SCRIPT)
        await self.context.add_init_script(HIDE_CARET_SCRIPT)
        if cfg.mark_elements:
            await self.context.add_init_script(LISTENER_SCRIPT)
        await self.allowlist.install(self.context, watcher=self._monitor)
        self._monitor.attach(self.context)
        if cfg.har_path is not None:
            self._responses = ResponseBodies(cfg.response_body_urls,
                                             cfg.max_response_body_bytes)
            self._responses.attach(self.context)
            self._har_fallback = HarFallback(journal=har_journal(Path(cfg.har_path)),
                                             responses=self._responses,
                                             secrets=cfg.known_secrets())
            self._har_fallback.attach(self.context)
            self._bodies = RequestBodies()
            self._bodies.attach(self.context)
        self.tabs = TabManager(self.context, cfg.dialog_policy, prepare=self.allowlist.guard_page)
        allowlist = self.allowlist
        await PageShield(lambda url: allowlist.record(url, "webrtc", method="",
                                                      resource_type="webrtc"),
                         self.tabs.dialogs).install(self.context)
        self._downloads = (DownloadKeeper(self.context, Path(cfg.downloads_dir),
                                          max_file_bytes=cfg.max_download_bytes,
                                          max_episode_bytes=cfg.max_episode_download_bytes)
                           if cfg.downloads_dir is not None else None)
        self._runner = ActionRunner(self.tabs, self.allowlist, cfg)
        self.passwords = PasswordMemory(cfg.named_secrets())
        self._steps = 0
        self._dialogs_seen = 0
        self._error = None
        if prepare is not None:
            await prepare(self.context)
        page = await self.tabs.new_tab()
        if cfg.logins:
            from webtraj.browser.login import form_login

            for login in cfg.logins:
                await form_login(page, login, timeout_ms=cfg.navigation_timeout_ms)
        error = await self._perform(Action(kind=ActionKind.GOTO, value=start_url))
        problem = await start_page_problem(await self.tabs.current(), error)
        if problem is not None:
            raise InfrastructureError(f"the start page {start_url} could not be reached: "
                                      f"{problem}")
        if ready is not None:
            try:
                await (await self.tabs.current()).wait_for_function(
                    ready, timeout=max(1, ready_timeout_ms))
            except PlaywrightError as exc:
                why = error or str(exc).splitlines()[0]
                raise PageNotReady(f"the page {start_url} did not start its task: {why}"
                                   ) from None
        return await self.observe(error=error)

    async def evaluate(self, expression: str) -> object:
        """The value of a JavaScript expression in the active tab (a page's own state)."""
        tabs, _ = self._live()
        return await (await tabs.current()).evaluate(expression)

    def _live(self) -> tuple[TabManager, ActionRunner]:
        if self.tabs is None or self._runner is None or self.context is None:
            raise EnvClosedError("the environment is not open: call reset(start_url) first")
        return self.tabs, self._runner

    async def observe(self, *, error: str | None = None,
                      times: dict[str, float] | None = None) -> BrowserObservation:
        """The active tab as it is now (no action); `times` gets each part's seconds."""
        tabs, _ = self._live()
        page = await tabs.current()
        new_dialogs = tuple(tabs.dialogs[self._dialogs_seen:])
        self._dialogs_seen = len(tabs.dialogs)
        session = self.allowlist.session(page) if self.allowlist else None
        obs = await capture(page, tabs, self.config, error=error, dialogs=new_dialogs,
                            session=session, times=times, secrets=self.passwords.values)
        if obs.mouse is not None and not (self._runner and self._runner.pointer_moved):
            # Only a pointer the episode moved: the headless shell shows every new page a
            # mouse at (0, 0) that no one moved (the full browser shows it none).
            obs = obs.model_copy(update={"mouse": None})
        self._boxes = obs.element_boxes
        return obs

    async def observe_settled(self, times: dict[str, float] | None = None
                              ) -> BrowserObservation:
        """Wait for the active tab to settle (as after an action), then observe it."""
        tabs, _ = self._live()
        await self._settle(await tabs.current())
        return await self.observe(times=times)

    async def _settle(self, page: Page) -> None:
        await settle(page, self._monitor, timeout_ms=self.config.settle_timeout_ms,
                     dom_quiet_ms=self.config.dom_quiet_ms)

    async def _perform(self, action: Action, times: dict[str, float] | None = None
                       ) -> str | None:
        tabs, runner = self._live()
        times = {} if times is None else times
        error: str | None = None
        t0 = time.perf_counter()
        try:
            typed = await runner.run(action)
        except ActionFailed as exc:
            error = str(exc)
        else:
            if typed is not None:  # into a password field: stored masked or by name
                self._stored_value = self.passwords.typed(typed)
        t1 = time.perf_counter()
        await self._settle(await tabs.current())
        times["action"], times["settle"] = t1 - t0, time.perf_counter() - t1
        return error

    async def step(self, action: Action) -> StepOutcome:
        """Do `action`, wait for the page to settle, observe. Failures are in `error`."""
        started = time.monotonic()
        pointed = await self._pointed(action)
        box = pointed[0].box if pointed else await self._element_box(action)
        times: dict[str, float] = {}
        self._stored_value = None
        error = await self._perform(action, times)
        stored = (action.model_copy(update={"value": self._stored_value})
                  if self._stored_value is not None else None)
        self._steps += 1
        obs = await self.observe(error=error, times=times)
        done = action.kind is ActionKind.STOP
        timings = StepTimings(**{k: times.get(k) for k in (
            "action", "settle", "capture", "tree", "screenshot")})
        return StepOutcome(observation=obs, error=error, done=done,
                          answer=action.value if done else None,
                          duration_s=time.monotonic() - started, element_box=box,
                          pointed=pointed, timings=timings, stored_action=stored)

    async def _pointed(self, action: Action) -> tuple[PointedElement, ...]:
        """What is under a mouse action's point (and a drag's end) before it acts. Its id is
        the mark on it or around it, else the smallest box of the last observation holding
        the point; nothing when the page cannot say (the action still runs)."""
        if action.x is None or action.y is None:  # a mouse action or a scroll at a point
            return ()
        points = [(action.x, action.y)]
        if action.to_x is not None and action.to_y is not None:
            points.append((action.to_x, action.to_y))
        tabs, _ = self._live()
        try:
            found = await (await tabs.current()).evaluate(_AT_POINT, [points, MARK_ATTRIBUTE])
        except PlaywrightError:
            return ()
        out = []
        for (x, y), hit in zip(points, found, strict=True):
            if hit is None:
                out.append(PointedElement(x=x, y=y, element_id=self._id_at(x, y)))
                continue
            bx, by, bw, bh = hit["box"]
            out.append(PointedElement(
                x=x, y=y, tag=hit["tag"],
                element_id=hit["mark"] if hit["mark"] in self._boxes else self._id_at(x, y),
                text=hit["text"], box=ElementBox(x=bx, y=by, width=max(bw, 0),
                                                 height=max(bh, 0))))
        return tuple(out)

    def _id_at(self, x: float, y: float) -> str | None:
        holding = [(w * h, i) for i, (bx, by, w, h) in self._boxes.items()
                   if bx <= x < bx + w and by <= y < by + h]
        return min(holding)[1] if holding else None

    async def _element_box(self, action: Action) -> ElementBox | None:
        """The target's box as the last screenshot shows it (before the action scrolls or
        changes anything); None when it cannot be measured (the action reports why). An id
        of the last observation's main document has its box from that observation's tree,
        taken with the screenshot; other targets are measured now."""
        if action.kind not in ELEMENT_KINDS:
            return None
        seen = self._boxes.get(action.element_id or "")
        if seen is not None and not self.config.full_page_screenshot:
            x, y, width, height = seen
            return ElementBox(x=x, y=y, width=width, height=height)
        tabs, runner = self._live()
        page = await tabs.current()
        try:
            loc = await runner.locate(page, action)
            bb = await loc.first.bounding_box(timeout=self.config.action_timeout_ms)
            if bb is None:
                return None
            dx = dy = 0.0
            if self.config.full_page_screenshot:
                dx, dy = await page.evaluate("[window.scrollX, window.scrollY]")
        except (ActionFailed, PlaywrightError):
            return None
        return ElementBox(x=bb["x"] + dx, y=bb["y"] + dy, width=bb["width"],
                          height=bb["height"])

    async def locator(self, element_id: str) -> Locator:
        """The Playwright locator behind an observation id (for custom actions)."""
        tabs, runner = self._live()
        page = await tabs.current()
        return await runner.locate(page, Action(kind=ActionKind.CLICK, element_id=element_id))

    @property
    def blocked(self) -> list[BlockedRequest]:
        """Requests and gotos the allowlist stopped so far in this episode."""
        return list(self.allowlist.blocked) if self.allowlist else []

    @property
    def downloads(self) -> list[DownloadRecord]:
        """Downloads saved (or failed) so far in this episode."""
        return list(self._downloads.records) if self._downloads else []

    def _stop_proxy(self) -> None:
        proxy, self._proxy = self._proxy, None
        if proxy is not None:
            proxy.stop()
            self._tunnels = proxy.tunnels

    def _fill_bodies(self, har: Path) -> None:
        """Request bodies into Playwright's HAR; a HAR that cannot be rewritten is kept as
        Playwright wrote it, and the episode says so."""
        try:
            self._bodies.fill(har)
            self._responses.fill(har)
        except (OSError, ValueError) as exc:
            self._error = self._error or f"request bodies not added to the HAR: {exc}"

    async def close(self) -> EpisodeResult:
        """Close the context (this writes the HAR). Safe to call twice."""
        if self.context is None:
            self._stop_proxy()
            return self.result or EpisodeResult()
        context, self.context = self.context, None
        context_closed = False
        try:
            await self._responses.settle()
            await context.close()
            context_closed = True
        except PlaywrightError as exc:
            self._error = self._error or f"closing the browser context failed: {exc}"
        finally:  # even when cancelled: the trace and the guards' records must survive
            self._stop_proxy()
            downloads = await self._downloads.finish() if self._downloads else ()
            har = self.config.har_path
            if har is not None and context_closed:
                self._fill_bodies(Path(har))
            if har is not None and self._har_fallback.write_if_missing(Path(har)):
                self._error = self._error or "the browser died before the context closed; " \
                    "the HAR was rebuilt from request events"
            self.result = EpisodeResult(
                har_path=str(har) if har is not None and Path(har).exists() else None,
                blocked=tuple(self.allowlist.blocked) if self.allowlist else (),
                refused_tunnels=tuple(self._tunnels),
                dialogs=tuple(self.tabs.dialogs) if self.tabs else (),
                downloads=downloads, steps=self._steps, error=self._error)
        self.tabs = None
        self._runner = None
        return self.result
