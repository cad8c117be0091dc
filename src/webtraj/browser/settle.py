"""Waiting for a page to settle after an action: load state, then a short network quiet.

Bounded by `settle_timeout_ms`: a page that polls forever costs at most that, never a hang.
An action that started no request costs nothing beyond the load-state check.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from playwright.async_api import BrowserContext, Page, Request
from playwright.async_api import Error as PlaywrightError


class NetworkMonitor:
    """Counts in-flight requests of a context and remembers the last network activity."""

    def __init__(self) -> None:
        self._inflight: set[Request] = set()
        self.last_activity = 0.0

    def attach(self, context: BrowserContext) -> None:
        context.on("request", self._started)
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        self._inflight.add(request)
        self.last_activity = time.monotonic()

    def touch(self) -> None:
        """Network activity seen before Playwright reports its request (the allowlist guard)."""
        self.last_activity = time.monotonic()

    def _ended(self, request: Request) -> None:
        self._inflight.discard(request)
        self.last_activity = time.monotonic()

    @property
    def inflight(self) -> int:
        return len(self._inflight)

    async def wait_quiet(self, since: float, quiet_s: float, deadline: float) -> None:
        """Return once nothing is in flight and nothing happened for `quiet_s` (or at once
        when there was no activity after `since`), or at `deadline`."""
        while time.monotonic() < deadline:
            now = time.monotonic()
            if not self._inflight and (self.last_activity < since
                                       or now - self.last_activity >= quiet_s):
                return
            await asyncio.sleep(min(0.02, max(0.0, deadline - now)))


async def settle(page: Page, monitor: NetworkMonitor, *, since: float, timeout_ms: int,
                 quiet_ms: int) -> None:
    """Wait (bounded) for the page to load and the network to go quiet; never raises."""
    deadline = time.monotonic() + timeout_ms / 1000
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await page.wait_for_load_state("load", timeout=max(1, timeout_ms))
    await monitor.wait_quiet(since, quiet_ms / 1000, deadline)
