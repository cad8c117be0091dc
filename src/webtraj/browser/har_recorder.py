"""Request bodies for Playwright's HAR, and a fallback HAR for when the browser dies.

Playwright's HAR (content "omit", so responses stay small) records no request body text, and
no postData at all for multipart: `RequestBodies` keeps each request's body from the
context's "request" events and `fill_request_bodies` writes them into the HAR once
Playwright has written it, as HAR `postData` (text, MIME type, form/multipart params; see
formats/http_body.py). Bodies pass through the run store's redactor like the rest of the
HAR. A multipart body with a file part is not reported by Chromium at all: it is recorded
with its MIME type and a comment saying so.

A fallback HAR for when the browser dies mid-episode:

Playwright writes the HAR (`record_har_path`) when the context closes; if Chromium crashed
first, that file never appears. This recorder keeps a minimal HAR 1.2 entry per finished or
failed request from the context's events and writes it only when Playwright's file is missing,
so every episode that ran leaves a network trace.

Response bodies are omitted too, except those `ResponseBodies` keeps: the responses whose URL
matches one of the episode's `response_body_urls` (what a task's evaluators read, e.g. a
WebArena-Verified `response_content` check), each up to a size bound, written into the HAR's
`response.content` the same way (and redacted with the rest of the HAR when the store takes it).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Request, Response
from playwright.async_api import Error as PlaywrightError

from webtraj import __version__
from webtraj.formats.har_reader import not_recorded
from webtraj.formats.http_body import post_data
from webtraj.model.jsonfile import read_journal
from webtraj.model.redact import Redactor


def _pairs(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


_NO_BODY = "the browser did not report this body (a multipart body with a file part)"


def request_post_data(request: Request) -> dict[str, Any] | None:
    """HAR `postData` of a request; None for a request without a body."""
    mime = request.headers.get("content-type", "")
    try:
        body = request.post_data_buffer
    except PlaywrightError:
        body = None
    if body is None:
        if request.method in ("GET", "HEAD", "OPTIONS") or not mime:
            return None
        return {"mimeType": mime, "text": "", "comment": _NO_BODY}
    return post_data(body, mime)


def _body_size(request: Request) -> int:
    try:
        return len(request.post_data_buffer or b"")
    except PlaywrightError:
        return -1


class RequestBodies:
    """The bodies of an episode's requests, in order per (method, URL)."""

    def __init__(self) -> None:
        self._bodies: defaultdict[tuple[str, str], deque[dict[str, Any] | None]] = \
            defaultdict(deque)
        self.count = 0

    def attach(self, context: BrowserContext) -> None:
        context.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        body = request_post_data(request)
        self._bodies[(request.method, request.url)].append(body)
        self.count += body is not None

    def fill(self, path: Path) -> int:
        """Write the recorded bodies into the HAR at `path` as `request.postData`; returns how
        many entries got one."""
        if not self.count:
            return 0

        def put(entry: dict[str, Any], body: dict[str, Any]) -> bool:
            entry["request"]["postData"] = body
            return True
        return _fill_har(path, self._bodies, put)


_TOO_BIG = "response body over {limit} bytes"
async def response_content(response: Response, max_bytes: int) -> dict[str, Any]:
    """The HAR `response.content` of a wanted response: its body (text, or base64), or why
    it could not be kept. A redirect has no body, so nothing is missing: no text, no mark."""
    mime = response.headers.get("content-type", "")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        return not_recorded(mime, _TOO_BIG.format(limit=max_bytes), int(declared))
    try:
        body = await response.body()
    except PlaywrightError as exc:
        if 300 <= response.status < 400:
            return {"mimeType": mime, "size": 0}
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return not_recorded(mime, f"the browser could not read it ({reason})")
    if len(body) > max_bytes:
        return not_recorded(mime, _TOO_BIG.format(limit=max_bytes), len(body))
    try:
        return {"mimeType": mime, "size": len(body), "text": body.decode()}
    except UnicodeDecodeError:
        return {"mimeType": mime, "size": len(body),
                "text": base64.b64encode(body).decode(), "encoding": "base64"}


class ResponseBodies:
    """The bodies of the responses an episode's evaluators read (URLs matching one of
    `patterns`, full match), at most `max_bytes` each, in order per (method, URL)."""

    def __init__(self, patterns: tuple[str, ...] = (), max_bytes: int = 1_000_000) -> None:
        self._patterns = [re.compile(p) for p in patterns]
        self.max_bytes = max_bytes
        self._bodies: defaultdict[tuple[str, str], deque[dict[str, Any]]] = defaultdict(deque)
        self._pending: set[asyncio.Task[None]] = set()

    def wanted(self, url: str) -> bool:
        return any(p.fullmatch(url) for p in self._patterns)

    def attach(self, context: BrowserContext) -> None:
        if self._patterns:
            context.on("response", self._seen)

    def _seen(self, response: Response) -> None:
        if not self.wanted(response.url):
            return
        # The slot is taken now, in response order; the body fills it when it arrives.
        slot: dict[str, Any] = {}
        self._bodies[(response.request.method, response.url)].append(slot)
        task = asyncio.get_running_loop().create_task(self._read(response, slot))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _read(self, response: Response, slot: dict[str, Any]) -> None:
        slot.update(await response_content(response, self.max_bytes))

    async def settle(self, timeout_s: float = 10.0) -> None:
        """Wait for the bodies still being read (before the context closes)."""
        if self._pending:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait(set(self._pending), timeout=timeout_s)

    def fill(self, path: Path) -> int:
        """Write the kept bodies into the HAR at `path` as `response.content`; returns how
        many entries got one."""
        def put(entry: dict[str, Any], body: dict[str, Any]) -> bool:
            response = entry.get("response")
            if not isinstance(response, dict):
                return False
            response["content"] = {**(response.get("content") or {}), **body}
            return True
        # A body still being read when the context closed is not silently absent.
        unread = not_recorded("", "still being read when the episode ended")
        bodies = {k: [slot or unread for slot in v] for k, v in self._bodies.items()}
        return _fill_har(path, bodies, put)


def _fill_har(path: Path, bodies: Mapping[tuple[str, str], Iterable[dict[str, Any] | None]],
              put: Callable[[dict[str, Any], dict[str, Any]], bool]) -> int:
    """Hand each HAR entry at `path` the next recorded body of its (method, URL), in order,
    through `put` (which says whether it kept it); rewrite the file atomically when any entry
    got one. Returns that count."""
    if not bodies or not path.exists():
        return 0
    log = json.loads(path.read_bytes())
    queues = {k: deque(v) for k, v in bodies.items()}
    filled = 0
    for entry in log.get("log", {}).get("entries", ()):
        req = entry.get("request") if isinstance(entry, dict) else None
        if not isinstance(req, dict):
            continue
        queue = queues.get((req.get("method"), req.get("url")))
        body = queue.popleft() if queue else None
        if body and put(entry, body):
            filled += 1
    if filled:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(log, indent=1))
        os.replace(tmp, path)
    return filled


class HarFallback:
    """Entries kept in memory and, with a `journal`, appended to it as they finish, so a worker
    killed mid-episode still leaves the requests made so far (see `har_from_journal`)."""

    def __init__(self, journal: Path | None = None,
                 responses: ResponseBodies | None = None, secrets: tuple[str, ...] = ()
                 ) -> None:
        self.entries: list[dict[str, Any]] = []
        self.journal = journal
        # The response bodies the episode's evaluators read are kept here too (or marked).
        self.responses = responses
        # The journal may outlive a killed run: it never holds a credential in clear.
        self._redactor = Redactor(secrets) if journal is not None else None

    def _add(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)
        if self.journal is not None and self._redactor is not None:
            with open(self.journal, "ab") as f:
                f.write(json.dumps(self._redactor.data(entry)).encode() + b"\n")

    def attach(self, context: BrowserContext) -> None:
        context.on("requestfinished", self._finished)
        context.on("requestfailed", self._failed)

    def _entry(self, request: Request) -> dict[str, Any]:
        timing = request.timing
        start_ms = timing.get("startTime", time.time() * 1000)
        end = timing.get("responseEnd", -1)
        req: dict[str, Any] = {
            "method": request.method, "url": request.url, "httpVersion": "HTTP/1.1",
            "headers": _pairs(request.headers), "queryString": [], "cookies": [],
            "headersSize": -1, "bodySize": _body_size(request),
        }
        body = request_post_data(request)
        if body is not None:
            req["postData"] = body
        return {
            "startedDateTime": datetime.fromtimestamp(start_ms / 1000, UTC).isoformat(),
            "time": max(0.0, end) if end is not None else 0.0,
            "request": req,
            "response": {"status": 0, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [], "cookies": [], "content": {"size": -1, "mimeType": ""},
                         "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": max(0.0, end or 0.0), "receive": 0},
        }

    async def _finished(self, request: Request) -> None:
        entry = self._entry(request)
        try:
            response = await request.response()
        except PlaywrightError:
            response = None
        if response is not None:
            entry["response"].update({
                "status": response.status, "statusText": response.status_text,
                "headers": _pairs(response.headers),
                "content": {"size": -1, "mimeType": response.headers.get("content-type", "")},
            })
            if self.responses is not None and self.responses.wanted(request.url):
                entry["response"]["content"] = await response_content(
                    response, self.responses.max_bytes)
        self._add(entry)

    def _failed(self, request: Request) -> None:
        entry = self._entry(request)
        entry["response"]["_failureText"] = request.failure or "failed"
        if self.responses is not None and self.responses.wanted(request.url):
            entry["response"]["content"] = not_recorded(
                "", f"the request failed ({request.failure or 'failed'})")
        self._add(entry)

    def write_if_missing(self, path: Path) -> bool:
        """Write the fallback HAR atomically unless Playwright already wrote one."""
        return _write_har(path, self.entries, "browser died")


def har_journal(har_path: Path) -> Path:
    """Where the requests of the episode writing `har_path` are journaled as they finish."""
    return har_path.with_name(har_path.name + ".journal")


def har_from_journal(journal: Path, path: Path) -> bool:
    """The HAR of an episode whose worker was killed: the entries it journaled so far (a line
    cut by the kill is dropped). False when there is nothing to write."""
    if not journal.exists():
        return False
    return _write_har(path, read_journal(journal, json.loads), "worker killed")


def _write_har(path: Path, entries: list[dict[str, Any]], why: str) -> bool:
    if path.exists():
        return False
    log = {"log": {"version": "1.2",
                   "creator": {"name": f"webtraj (fallback: {why})", "version": __version__},
                   "pages": [], "entries": entries}}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(log, indent=1))
    os.replace(tmp, path)
    return True
