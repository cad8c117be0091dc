"""A trajectory's network requests for people: read from its HAR (and the requests the guard
blocked), each given a type (document, script, xhr, ...), a status class and the page it was
made from (the last document loaded before it), then grouped and filtered; the page shows
one screenful at a time, so a HAR of 10,000 requests stays usable."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

import orjson
from pydantic import BaseModel

from webtraj.model.trajectory import Trajectory
from webtraj.store.files import NotInRun, TrajectoryFiles

PAGE_SIZE = 100
TYPES = ("document", "script", "stylesheet", "image", "font", "xhr", "media", "other")
STATUSES = ("2xx", "3xx", "4xx", "5xx", "failed", "blocked")
_EXT = {"js": "script", "mjs": "script", "css": "stylesheet", "png": "image", "jpg": "image",
        "jpeg": "image", "gif": "image", "svg": "image", "webp": "image", "ico": "image",
        "avif": "image", "woff": "font", "woff2": "font", "ttf": "font", "otf": "font",
        "json": "xhr", "mp4": "media", "webm": "media", "mp3": "media", "html": "document",
        "htm": "document"}
_PLAYWRIGHT_TYPES = {"document": "document", "script": "script", "stylesheet": "stylesheet",
                     "image": "image", "font": "font", "xhr": "xhr", "fetch": "xhr",
                     "media": "media", "eventsource": "xhr", "websocket": "xhr"}


class Request(BaseModel):
    index: int
    method: str
    url: str
    status: int | None
    kind: str  # one of TYPES
    status_class: str  # one of STATUSES
    page: str  # the document it was made from ("" before the first one)
    blocked: str | None = None
    mime: str = ""


class Group(BaseModel):
    """The requests made from one page (document)."""

    page: str
    n: int
    failed: int
    blocked: int


class Network(BaseModel):
    requests: list[Request]
    problem: str | None = None

    def groups(self) -> list[Group]:
        order: dict[str, list[int]] = {}
        for r in self.requests:
            g = order.setdefault(r.page, [0, 0, 0])
            g[0] += 1
            g[1] += r.status_class in ("4xx", "5xx", "failed")
            g[2] += r.blocked is not None
        return [Group(page=p, n=n, failed=f, blocked=b) for p, (n, f, b) in order.items()]

    def counts(self, attr: str) -> dict[str, int]:
        c = Counter(getattr(r, attr) for r in self.requests)
        names = TYPES if attr == "kind" else STATUSES
        return {k: c[k] for k in names if c[k]}


@dataclass(frozen=True)
class NetworkQuery:
    page: str | None = None
    kind: str | None = None
    status: str | None = None
    q: str | None = None
    number: int = 1

    def match(self, r: Request) -> bool:
        return ((self.page is None or r.page == self.page)
                and (self.kind is None or r.kind == self.kind)
                and (self.status is None or r.status_class == self.status)
                and (not self.q or self.q.lower() in r.url.lower()
                     or self.q.lower() in r.method.lower()))

    def select(self, net: Network) -> tuple[list[Request], int]:
        """One page of the matching requests, and how many match."""
        hits = [r for r in net.requests if self.match(r)]
        start = (self.number - 1) * PAGE_SIZE
        return hits[start:start + PAGE_SIZE], len(hits)


def _kind(entry: dict, url: str, mime: str) -> str:
    declared = entry.get("_resourceType")
    if isinstance(declared, str) and declared in _PLAYWRIGHT_TYPES:
        return _PLAYWRIGHT_TYPES[declared]
    m = mime.split(";")[0].strip().lower()
    if m in ("text/html", "application/xhtml+xml"):
        return "document"
    if m in ("application/javascript", "text/javascript", "application/x-javascript"):
        return "script"
    if m == "text/css":
        return "stylesheet"
    if m.startswith("image/"):
        return "image"
    if m.startswith("font/") or "font" in m:
        return "font"
    if m.startswith(("audio/", "video/")):
        return "media"
    if m in ("application/json", "text/plain", "application/xml", "text/xml") or m.endswith(
            "+json"):
        return "xhr"
    try:
        path = urlsplit(url).path
    except ValueError:
        return "other"
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return _EXT.get(ext, "other")


def _status_class(status: int | None) -> str:
    if status is None:
        return "failed"
    return f"{min(max(status // 100, 2), 5)}xx"


def read_network(traj: Trajectory, files: TrajectoryFiles) -> Network:
    """Every request of the trajectory in the HAR's order, then the blocked ones."""
    out: list[Request] = []
    problem = None
    page = ""
    if traj.network_trace:
        try:
            har = orjson.loads(files.read(traj.network_trace))
            entries = har["log"]["entries"]
            if not isinstance(entries, list):
                raise TypeError("log.entries is not a list")
            for e in entries:
                if not isinstance(e, dict):
                    continue
                req, resp = e.get("request") or {}, e.get("response") or {}
                if not isinstance(req, dict) or not isinstance(resp, dict):
                    continue
                status = resp.get("status")
                status = status if isinstance(status, int) and status > 0 else None
                url = str(req.get("url", ""))
                content = resp.get("content")
                mime = str(content.get("mimeType") or "") if isinstance(content, dict) else ""
                kind = _kind(e, url, mime)
                if kind == "document" and str(req.get("method", "GET")).upper() == "GET":
                    page = url
                out.append(Request(index=len(out), method=str(req.get("method", "")), url=url,
                                   status=status, kind=kind, status_class=_status_class(status),
                                   page=page, mime=mime))
        except NotInRun as exc:
            problem = f"{traj.network_trace} cannot be read: {exc}"
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            problem = f"{traj.network_trace} cannot be read: {type(exc).__name__}: {exc}"
    for b in (*traj.blocked_requests, *traj.refused_tunnels):
        declared = {"_resourceType": b.resource_type}
        out.append(Request(index=len(out), method=b.method, url=b.url, status=None,
                           kind=_kind(declared, b.url, ""), status_class="blocked", page="",
                           blocked=b.reason))
    return Network(requests=out, problem=problem)
