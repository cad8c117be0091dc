"""The allowlist's network-level backstop: a proxy that forwards nothing.

Some connections never pass through request interception at all: speculation-rules prefetch
and prerender, preconnects, requests of pages not yet under the guard. Each episode's browser
context therefore sends all its traffic to this proxy except the allowed origins, which
bypass it (`proxy.bypass`). The proxy reads the request line, records the attempt and answers
403 on its own, so a server outside the allowlist receives nothing, whatever Chromium feature
tried to reach it. Plain-HTTP attempts are recorded with the page's blocked requests (reason
"network"); tunnels (CONNECT, for https/wss) carry no URL and are kept apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from urllib.parse import urlsplit

from webtraj.browser.allowlist import OriginAllowlist
from webtraj.model.episode import BlockedRequest

_DEFAULT_PORTS = {"http": 80, "https": 443}
_REFUSAL = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            b"Content-Length: 39\r\n\r\nblocked by the webtraj origin allowlist")


def bypass_entries(origins: frozenset[str]) -> str:
    """Chromium proxy-bypass rules (`host:port`, comma-separated) for the allowed origins."""
    entries = []
    for origin in sorted(origins):
        parts = urlsplit(origin)
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        host = parts.netloc.rsplit(":", 1)[0] if parts.port else parts.netloc
        if host and port:
            entries.append(f"{host}:{port}")
    return ",".join(entries)


class RefusingProxy:
    """An HTTP proxy on loopback that refuses (and records) every request it is sent."""

    def __init__(self, allowlist: OriginAllowlist) -> None:
        self.allowlist = allowlist
        self._server: asyncio.Server | None = None
        self.port = 0
        self.tunnels: list[BlockedRequest] = []

    async def start(self) -> RefusingProxy:
        self._server = await asyncio.start_server(self._refuse, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def playwright_proxy(self) -> dict[str, str]:
        """The `proxy` option of `browser.new_context` routing all but the allowlist here."""
        return {"server": f"http://127.0.0.1:{self.port}",
                "bypass": bypass_entries(self.allowlist.origins)}

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), timeout=10)
            method, _, rest = line.decode("latin-1").strip().partition(" ")
            target = rest.rsplit(" ", 1)[0] if rest else ""
            if method.upper() == "CONNECT":
                self.tunnels.append(BlockedRequest(url=f"https://{target}", method="CONNECT",
                                                   reason="network", time=time.time()))
            elif method:
                self.allowlist.record(target, "network", method=method.upper())
            writer.write(_REFUSAL)
            await writer.drain()
        except (TimeoutError, ConnectionError, UnicodeDecodeError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def stop(self) -> None:
        """Stop listening (synchronous: it runs in `finally` blocks, even when cancelled)."""
        if self._server is not None:
            self._server.close()
            self._server = None
