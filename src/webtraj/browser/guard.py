"""The allowlist's second line: a CDP `Fetch` interception on every page of an episode.

Playwright's routes see only the first request of a redirect chain (Playwright continues the
later hops itself) and continue requests that have no frame, so a 302 from an allowed origin
to another one would be followed. Chromium's `Fetch.requestPaused` reports every hop of a
chain, each before it is sent; this guard fails the ones outside the allowlist (recorded with
reason "redirect" when a redirect led there) so the other server receives nothing. It also
turns prerendering off for the page (a prerender is a navigation nobody asked for).

A page must be guarded before its first request: `guard(page)` is awaited for tabs webtraj
opens; pages a site opens (popups) are guarded from the context's "page" event. A popup's
first navigation may start before that; its redirect hops then meet the refusing proxy
(refusal.py), which records them with reason "network".
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from webtraj.browser.allowlist import OriginAllowlist

_ALL_REQUESTS = {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}


class RedirectGuard:
    """Per context: one CDP session per page, each failing requests the allowlist refuses."""

    def __init__(self, context: BrowserContext, allowlist: OriginAllowlist,
                 on_request: Callable[[], None] | None = None) -> None:
        self.context = context
        self.allowlist = allowlist
        # Told of each request as soon as the guard holds it: Playwright's own "request" event
        # comes only after the guard lets it go, and settling must not miss it meanwhile.
        self.on_request = on_request
        self._sessions: dict[Page, CDPSession] = {}
        self._pending: dict[Page, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        context.on("page", self._opened)

    def guarded(self, page: Page) -> bool:
        return page in self._sessions

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
        if self.on_request is not None:
            self.on_request()
        task = asyncio.ensure_future(self._decide(session, event))
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
