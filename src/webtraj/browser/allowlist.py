"""Origin allowlist: which URLs an episode may request, and the record of what it refused.

Enforced in three places: every request of a page passes the page's CDP guard (guard.py),
which fails anything outside the allowed origins before the browser opens a connection,
redirect hops and frame-less requests included; WebSockets get the same check through
`route_web_socket`; and whatever escapes interception (speculative prefetches, a popup's
first requests) meets the refusing proxy (refusal.py) at the network level.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, CDPSession, Page, WebSocketRoute

from webtraj.browser.guard import PageGuard, RequestWatcher
from webtraj.model.episode import BlockedRequest

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# Schemes that never touch the network and that pages legitimately use.
_LOCAL_SCHEMES = frozenset({"about", "data", "blob", "javascript"})


def normalize_origin(url_or_origin: str) -> str:
    """`HTTP://Host:80/path` -> `http://host`; ws(s) map to http(s) so one entry covers both."""
    parts = urlsplit(url_or_origin.strip())
    scheme = parts.scheme.lower()
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


class OriginAllowlist:
    """Decides, per URL, whether it may be requested; keeps the blocked ones."""

    def __init__(self, origins: tuple[str, ...] | list[str]) -> None:
        self.origins = frozenset(normalize_origin(o) for o in origins)
        self.blocked: list[BlockedRequest] = []
        self._guard: PageGuard | None = None

    def verdict(self, url: str) -> str | None:
        """None when allowed, else the reason ("scheme", "origin", or "malformed" for a URL
        whose host or port cannot be read, e.g. `http://[364]/` written by a model)."""
        try:
            scheme = urlsplit(url).scheme.lower()
            if scheme in _LOCAL_SCHEMES:
                return None
            if scheme not in _DEFAULT_PORTS:
                return "scheme"
            return None if normalize_origin(url) in self.origins else "origin"
        except ValueError:
            return "malformed"

    def record(self, url: str, reason: str, *, method: str = "GET",
               resource_type: str = "") -> BlockedRequest:
        item = BlockedRequest(url=url, method=method, resource_type=resource_type,
                              reason=reason, time=time.time())
        self.blocked.append(item)
        return item

    def session(self, page: Page) -> CDPSession | None:
        """The CDP session the guard holds on `page` (None before it is guarded)."""
        return self._guard.session(page) if self._guard is not None else None

    async def guard_page(self, page: Page) -> None:
        """Put `page` under the guard before it sends anything (see guard.py)."""
        if self._guard is not None:
            await self._guard.guard(page)

    async def _on_websocket(self, ws: WebSocketRoute) -> None:
        reason = self.verdict(ws.url)
        if reason is None:
            ws.connect_to_server()
            return
        self.record(ws.url, reason, resource_type="websocket")
        await ws.close(code=1008, reason="blocked by webtraj origin allowlist")

    async def install(self, context: BrowserContext,
                      watcher: RequestWatcher | None = None) -> None:
        self._guard = PageGuard(context, self, watcher)
        await context.route_web_socket(re.compile(r".*"), self._on_websocket)
