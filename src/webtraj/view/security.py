"""The viewer's guards, apart from its pages: it answers only Host values of its own
address (DNS rebinding), every reply carries a Content-Security-Policy that allows no inline
script (and no-sniff, no-referrer), a failure is a 500 page and one log line, never a
traceback, and files are served only from inside a run's trajectory folders (regular files,
no link leads out: `store.files.TrajectoryFiles`), as data: images as images, anything else
as sandboxed plain text."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webtraj.store.files import NotInRun, TrajectoryFiles
from webtraj.view.runs import RunRef

log = logging.getLogger("webtraj.view")

CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# Artifacts are served as data: images as images, everything else as plain text.
_ARTIFACT_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                   ".webp": "image/webp"}


class HostCheck:
    """Answers only requests whose Host header names the viewer's own address (the bound one,
    localhost, 127.0.0.1 or [::1], with the port): a web page the user visits that rebinds
    its own name to 127.0.0.1 (DNS rebinding) sends its own name as Host and gets 403."""

    def __init__(self, app: ASGIApp, allowed: set[str]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((v for k, v in scope["headers"] if k == b"host"), b"")
            if host.decode("latin-1").lower() not in self.allowed:
                response = PlainTextResponse("403: this viewer answers only requests for "
                                             "its own address", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class NoTraceback:
    """Any error a page did not handle becomes a 500 page (`error_page`) and one log line
    (what failed and why): a run folder or a URL never puts a traceback in the viewer's log."""

    def __init__(self, app: ASGIApp, error_page: Callable[[str], Response]) -> None:
        self.app = app
        self.error_page = error_page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:  # noqa: BLE001 - the log line names it
            log.error("viewer: GET %s failed: %s: %s", scope.get("path", ""),
                      type(exc).__name__, exc)
            if not started:
                await self.error_page(f"this page failed: {type(exc).__name__}")(
                    scope, receive, send)


class SecurityHeaders:
    """Adds the CSP (unless a route set its own) and no-sniff / no-referrer to every reply."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
            await send(message)

        await self.app(scope, receive, send_with_headers)


def trajectory_files(ref: RunRef, tid: str) -> TrajectoryFiles:
    """A trajectory folder of the run reached without a link, or 404 for anything else."""
    try:
        files = TrajectoryFiles(ref.root, tid)
        files.check()
    except NotInRun as exc:
        log.info("viewer: refused trajectory %r of %s: %s", tid, ref.key, exc)
        raise HTTPException(404, "no such trajectory") from None
    return files


def artifact_response(files: TrajectoryFiles, name: str) -> Response:
    """A file of the trajectory folder, or 404 for anything outside it (or not a file)."""
    try:
        body, size = files.chunks(name)
    except (NotInRun, OSError) as exc:
        log.info("viewer: refused /file %r of %s: %s", name, files.trajectory_id, exc)
        raise HTTPException(404, "no such file") from None
    suffix = Path(name).suffix.lower()
    kind = _ARTIFACT_TYPES.get(suffix, "text/plain; charset=utf-8")
    return StreamingResponse(body, media_type=kind, headers={
        "Content-Length": str(size), "Content-Disposition": "inline",
        "Content-Security-Policy": "sandbox"})
