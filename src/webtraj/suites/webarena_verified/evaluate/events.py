"""Network events: one HAR entry seen the way the WebArena-Verified evaluator sees it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qs, unquote, urlparse

from webtraj.formats.http_body import multipart_boundary, multipart_params

STATIC_SUFFIXES = (".css", ".js", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".woff", ".woff2",
                   ".ttf", ".ico", ".webp")


# The request headers that decide navigation and referer filtering (values lower-cased).
_PICKED = frozenset({"sec-fetch-dest", "sec-fetch-mode", "sec-fetch-user", "accept", "referer"})


class NetworkEvent:
    """One HAR entry: the fields used to pick events are kept, the rest is re-read on demand.

    Built either from an entry dict (kept) or, for large traces, from a scan that drops the
    entry and leaves a `reload` function (see `webtraj.formats.har_reader.scan_har`).
    """

    __slots__ = ("index", "url", "method", "status", "is_static", "is_navigation", "referer",
                 "_entry", "_reload")

    def __init__(self, entry: dict[str, Any], index: int,
                 reload: Callable[[], dict[str, Any]] | None = None) -> None:
        req = entry["request"]
        self.index = index
        self.url: str = req["url"]
        self.method: str = req["method"]
        self.status: int = entry["response"]["status"]
        self.is_static = is_static_url(self.url)
        headers = {}
        for h in req.get("headers", ()):
            name = h["name"].lower()
            if name in _PICKED:
                headers[name] = h["value"].lower()
        self.is_navigation = _is_navigation(self.method, headers)
        self.referer: str | None = headers.get("referer")  # lower-cased, as upstream filters
        self._entry = None if reload else entry
        self._reload = reload

    @property
    def entry(self) -> dict[str, Any]:
        if self._entry is not None:
            return self._entry
        assert self._reload is not None
        return self._reload()

    def headers(self) -> dict[str, str]:
        """Request headers by lower-cased name, values as sent."""
        return _headers(self.entry["request"], lower_values=False)

    def details(self) -> EventDetails:
        """Body, response content and cookies (parses the entry again for scanned traces)."""
        e = self.entry
        body = e["request"].get("postData")
        content = e["response"].get("content")
        cookies = {c["name"]: unquote(c.get("value", ""))
                   for c in e["response"].get("cookies", ())}
        return EventDetails(
            headers=_headers(e["request"], lower_values=False),
            post_data=parse_body(body) if body else None,
            response_content=parse_body(content) if content else None,
            response_cookies=cookies)


class EventDetails(NamedTuple):
    headers: dict[str, str]
    post_data: dict[str, Any] | None
    response_content: dict[str, Any] | None
    response_cookies: dict[str, str]


def is_static_url(url: str) -> bool:
    """Static assets are recognized by the suffix of the URL path (`urlparse().path`, so
    `/a;b.js` is not static). The cheap test settles the common cases."""
    head = url.split("#", 1)[0].split("?", 1)[0]
    if not head.endswith(STATIC_SUFFIXES) and ";" not in head and not any(
            c in url for c in "\t\r\n"):
        return False
    return urlparse(url).path.endswith(STATIC_SUFFIXES)


def _headers(request: dict[str, Any], *, lower_values: bool) -> dict[str, str]:
    out = {}
    for h in request.get("headers", ()):
        v = h["value"]
        out[h["name"].lower()] = v.lower() if lower_values else v
    return out


def _is_navigation(method: str, h: dict[str, str]) -> bool:
    """A user navigation: a GET for a document (Sec-Fetch headers, or an HTML Accept)."""
    if method != "GET":
        return False
    if "sec-fetch-user" in h:
        return (h.get("sec-fetch-dest") == "document" and h.get("sec-fetch-mode") == "navigate"
                and h.get("sec-fetch-user") == "?1" and "text/html" in h.get("accept", ""))
    return h.get("accept", "").startswith("text/html")


def parse_body(body: dict[str, Any]) -> dict[str, Any] | None:
    """A request or response body as a dict: form (first value per key), JSON object, or
    multipart fields; None for anything else."""
    mime = body.get("mimeType", "") or ""
    text = body.get("text", "")
    if not text:
        return None
    if "application/x-www-form-urlencoded" in mime:
        return {k: v[0] if v else "" for k, v in parse_qs(text, keep_blank_values=True).items()}
    if "json" in mime.lower():  # application/json, application/vnd.api+json, ...
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    if "multipart/form-data" in mime:
        boundary = multipart_boundary(mime)
        if boundary:
            return parse_multipart(text, boundary)
    return None


def parse_multipart(text: str, boundary: str) -> dict[str, str]:
    return {p["name"]: p["value"] for p in multipart_params(text, boundary)}


def scan_events(path: str | Path) -> tuple[list[NetworkEvent], Callable[[], None]]:
    """Events of a HAR file read lean (see `scan_har`); call the returned `close` when done."""
    from webtraj.formats.har_reader import scan_har

    return scan_har(path, lambda entry, i, reload: NetworkEvent(entry, i, reload))
