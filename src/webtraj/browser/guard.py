"""The allowlist's request interception: a CDP `Fetch` session on every page of an episode.

Chromium's `Fetch.requestPaused` reports every request of the page before it is sent: each
hop of a redirect chain, and requests without a frame. (Playwright's routes see only the first
request of a chain, continuing later hops themselves, so a 302 from an allowed origin to
another one would be followed; a route and this guard together would also hold every request
twice.) Requests outside the allowlist are failed and recorded, with reason "redirect" when a
redirect led there, so the other server receives nothing. Prerendering is turned off for the
page (a prerender is a navigation nobody asked for).

A page must be guarded before its first request: `guard(page)` is awaited for tabs webtraj
opens; pages a site opens (popups) are guarded from the context's "page" event. A popup's
first requests may come before that; they meet the refusing proxy (refusal.py), which lets
only the allowed origins through and records the rest with reason "network".
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from webtraj.browser.allowlist import OriginAllowlist

class RequestWatcher(Protocol):
    """Told when the guard starts and stops holding a request (see settle.NetworkMonitor)."""

    def hold(self, key: str) -> None: ...

    def release(self, key: str) -> None: ...


_ALL_REQUESTS = {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}


class PageGuard:
    """Per context: one CDP session per page, each failing requests the allowlist refuses."""

    def __init__(self, context: BrowserContext, allowlist: OriginAllowlist,
                 watcher: RequestWatcher | None = None) -> None:
        self.context = context
        self.allowlist = allowlist
        # Told of each request while the guard holds it: Playwright's own "request" event
        # comes only after the guard lets it go, and settling must not miss it meanwhile.
        self.watcher = watcher
        self._sessions: dict[Page, CDPSession] = {}
        self._pending: dict[Page, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        context.on("page", self._opened)

    def guarded(self, page: Page) -> bool:
        return page in self._sessions

    def session(self, page: Page) -> CDPSession | None:
        """The page's CDP session (other page-level CDP work shares it)."""
        return self._sessions.get(page)

    def _opened(self, page: Page) -> None:
        if page not in self._sessions and page not in self._pending:
            self._pending[page] = asyncio.ensure_future(self._attach(page))

    async def guard(self, page: Page) -> None:
        """Guard `page`; returns once every later request of it goes through the guard."""
        self._opened(page)
        task = self._pending.get(page)
        if task is not None:
            await task

    async def _attach(self, page: Page) -> None:
        try:
            session = await self.context.new_cdp_session(page)
            session.on("Fetch.requestPaused", lambda event: self._spawn(session, event))
            await session.send("Fetch.enable", _ALL_REQUESTS)
            await session.send("Page.setPrerenderingAllowed", {"isAllowed": False})
        except PlaywrightError:
            if not page.is_closed():
                raise
            return  # closed before it could be guarded: it sends nothing more
        finally:
            self._pending.pop(page, None)
        self._sessions[page] = session
        page.on("close", lambda p: self._sessions.pop(p, None))

    def _spawn(self, session: CDPSession, event: dict[str, Any]) -> None:
        key = str(event.get("requestId", ""))
        if self.watcher is not None:
            self.watcher.hold(key)
        task = asyncio.ensure_future(self._decide(session, event))
        if self.watcher is not None:
            task.add_done_callback(lambda _: self.watcher.release(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, session: CDPSession, event: dict[str, Any]) -> None:
        request = event.get("request", {})
        url = str(request.get("url", ""))
        reason = self.allowlist.verdict(url)
        # A page closing while a request waits makes either answer fail: nothing to do then.
        with contextlib.suppress(PlaywrightError):
            if reason is None:
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
                return
            if event.get("redirectedRequestId"):
                reason = "redirect"
            self.allowlist.record(url, reason, method=str(request.get("method", "GET")),
                                  resource_type=str(event.get("resourceType", "")).lower())
            await session.send("Fetch.failRequest", {"requestId": event["requestId"],
                                                     "errorReason": "BlockedByClient"})
