"""Waiting for a page to settle after an action, on what the page is doing rather than on time.

A page is settled when its document has loaded, the context has no request in flight, and
inside the page nothing is pending: no fetch/XHR whose callbacks have not run (nor a body
being read), no short timer about to fire (a dropdown that closes 100 ms after blur), no
navigation under way; and its DOM has not changed for `dom_quiet_ms`; then two animation
frames pass so that what was drawn is what is observed. Waiting on time instead made a
client-rendered page on a loaded machine be observed before its results were drawn, and
cost a fixed quiet window on every step of an idle one.

Bounded by `settle_timeout_ms`: a page that polls, animates or chains timers forever costs at
most that, never a hang. Timers set from inside a timer callback are not waited for (that is
how polling loops are built), nor timers longer than `SHORT_TIMER_MS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from playwright.async_api import BrowserContext, Page, Request
from playwright.async_api import Error as PlaywrightError

SHORT_TIMER_MS = 1000


class NetworkMonitor:
    """Counts the context's requests in flight (documents, subresources, anything the page's
    scripts do not see), and those the allowlist guard is holding before Playwright reports
    them, and wakes waiters when none is left."""

    def __init__(self) -> None:
        self._inflight: set[Request | str] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def hold(self, key: str) -> None:
        self._inflight.add(key)
        self._idle.clear()

    def release(self, key: str) -> None:
        self._ended(key)

    def attach(self, context: BrowserContext) -> None:
        context.on("request", self._started)
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        self._inflight.add(request)
        self._idle.clear()

    def _ended(self, request: Request | str) -> None:
        self._inflight.discard(request)
        if not self._inflight:
            self._idle.set()

    @property
    def inflight(self) -> int:
        return len(self._inflight)

    async def wait_idle(self, deadline: float) -> bool:
        """True once nothing is in flight; False at `deadline`."""
        left = deadline - time.monotonic()
        if self._idle.is_set():
            return True
        if left <= 0:
            return False
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=left)
        except TimeoutError:
            return False
        return True


# Installed in every document of an episode's context before the page's own scripts.
ACTIVITY_SCRIPT = """(() => {
  if (window.__webtrajActivity) return;
  const s = window.__webtrajActivity = {pending: 0, navigating: false,
                                        last: performance.now(), wake: null};
  const setT = window.setTimeout, clearT = window.clearTimeout;
  // A settle waiting on the page is woken by the next activity instead of polling it.
  const touch = () => {
    s.last = performance.now();
    if (s.wake) { const wake = s.wake; s.wake = null; setT.call(window, wake, 0); }
  };
  const begin = () => { s.pending++; touch(); };
  // After the page's own callbacks of the settled promise (microtasks): a macrotask later.
  const end = () => { setT.call(window, () => { s.pending--; touch(); }, 0); };
  const track = (p) => { begin(); p.then(end, end); return p; };
  if (window.fetch) {
    const f = window.fetch;
    window.fetch = function (...a) { return track(f.apply(this, a)); };
  }
  if (window.Response) {
    for (const m of ["json", "text", "blob", "arrayBuffer", "formData"]) {
      const orig = Response.prototype[m];
      if (orig) Response.prototype[m] = function (...a) { return track(orig.apply(this, a)); };
    }
  }
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...a) {
      begin();
      this.addEventListener("loadend", end, {once: true});
      return send.apply(this, a);
    };
  }
  const short = new Map();
  let inTimer = false;
  window.setTimeout = function (fn, ms, ...a) {
    if (typeof fn !== "function" || inTimer || !((ms || 0) <= SHORT_TIMER_MS)) {
      return setT.call(window, fn, ms, ...a);
    }
    begin();
    const id = setT.call(window, (...b) => {
      short.delete(id);
      inTimer = true;
      try { fn.apply(window, b); } finally { inTimer = false; s.pending--; touch(); }
    }, ms, ...a);
    short.set(id, true);
    return id;
  };
  window.setTimeout.__webtrajOriginal = setT.bind(window);
  window.clearTimeout = function (id) {
    if (short.delete(id)) { s.pending--; touch(); }
    return clearT.call(window, id);
  };
  window.addEventListener("beforeunload", () => { s.navigating = true; touch(); });
  window.addEventListener("pageshow", () => { s.navigating = false; touch(); });
  new MutationObserver(touch).observe(document, {subtree: true, childList: true,
                                                 attributes: true, characterData: true});
})();""".replace("SHORT_TIMER_MS", str(SHORT_TIMER_MS))

# Resolves once nothing is pending and the DOM has been quiet for `quiet` ms, after two
# animation frames with no change in between; or at `limit` ms with what is still going on.
_QUIET = """([quiet, limit]) => new Promise(done => {
  const s = window.__webtrajActivity;
  if (!s) { done("no-script"); return; }
  const later = setTimeout.__webtrajOriginal || setTimeout;
  let finished = false;
  const finish = (state) => { if (!finished) { finished = true; s.wake = null; done(state); } };
  later(() => finish(s.navigating ? "navigating" : "busy"), limit);
  const check = () => {
    if (finished) return;
    if (s.pending > 0 || s.navigating) { s.wake = check; return; }
    const idle = performance.now() - s.last;
    if (idle < quiet) { later(check, Math.max(1, quiet - idle)); return; }
    const mark = s.last;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      if (s.last === mark && s.pending === 0 && !s.navigating) finish("quiet");
      else check();
    }));
  };
  check();
})"""


async def settle(page: Page, monitor: NetworkMonitor, *, timeout_ms: int,
                 dom_quiet_ms: int) -> None:
    """Wait (bounded) until the page has loaded, nothing is in flight or pending in it, and
    its DOM is quiet and drawn; never raises."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await page.wait_for_load_state("load", timeout=max(1, left * 1000))
        if not await monitor.wait_idle(deadline):
            return
        left = deadline - time.monotonic()
        if left <= 0:
            return
        try:
            state = await asyncio.wait_for(
                page.evaluate(_QUIET, [dom_quiet_ms, int(left * 1000)]), timeout=left + 0.5)
        except TimeoutError:
            return
        except PlaywrightError:  # the document went away under us: settle the next one
            await asyncio.sleep(0)
            continue
        if state == "navigating":
            continue
        if state != "quiet":  # busy until the bound, or a page without the script
            return
        if monitor.inflight == 0:
            return
