"""Serving MiniWoB++'s pages on loopback http, each task page with webtraj's episode script.

`MiniWoBServer` runs the app in a child process (like the sandbox sites' `SitesProcess`) on a
socket it binds and listens on itself before the child starts, so the URL is known and
connections wait in the socket's backlog until the child serves them: a run need not wait for
the server (`wait=False`), its start overlaps the workers' and browsers' own. `urls` maps
`miniwob` to its base URL. The two `/_webtraj/` endpoints only acknowledge: what the page
reports is kept by the episode's HAR, not by the server, so a stored run can be scored again
without it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import closing
from functools import cache
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from webtraj.runtime.children import stop_child
from webtraj.suites.miniwob.assets import html_dir
from webtraj.suites.miniwob.paths import REWARD_PATH, SCRIPT_PATH, START_PATH

# The reward panel MiniWoB++ draws beside the task would show the agent its reward.
_HIDE_PANEL = "<style>#reward-display { display: none !important; }</style>"


@cache
def _script() -> bytes:
    return (Path(__file__).parent / "episode.js").read_bytes()


def inject(page: str) -> str:
    """The page with the episode script after its own scripts and the reward panel hidden."""
    tag = f'<script src="{SCRIPT_PATH}"></script>'
    page = page.replace("</head>", _HIDE_PANEL + "</head>", 1) if "</head>" in page \
        else _HIDE_PANEL + page
    idx = page.rfind("</body>")
    return page[:idx] + tag + page[idx:] if idx >= 0 else page + tag


def app(root: Path | None = None) -> Starlette:
    root = root or html_dir()
    tasks = root / "miniwob"

    async def task_page(request: Request) -> Response:
        name = request.path_params["name"]
        path = tasks / f"{name}.html"
        if "/" in name or not path.is_file():
            return HTMLResponse("no such MiniWoB++ task", status_code=404)
        return HTMLResponse(inject(path.read_text(encoding="utf-8")),
                            headers={"Cache-Control": "no-store"})

    async def script(_: Request) -> Response:
        return Response(_script(), media_type="text/javascript")

    async def ack(_: Request) -> Response:
        return Response(status_code=204)

    async def index(_: Request) -> Response:
        names = sorted(p.stem for p in tasks.glob("*.html"))
        links = "".join(f'<li><a href="/miniwob/{n}.html?seed=0">{n}</a></li>' for n in names)
        return HTMLResponse(f"<h1>MiniWoB++ ({len(names)} tasks)</h1><ul>{links}</ul>")

    async def favicon(_: Request) -> Response:
        return Response(status_code=204)

    return Starlette(routes=[
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route(SCRIPT_PATH, script),
        Route(START_PATH, ack, methods=["POST"]),
        Route(REWARD_PATH, ack, methods=["POST"]),
        Route("/miniwob/{name}.html", task_page),
        Mount("/", StaticFiles(directory=root)),
    ])


def serve(host: str, port: int | None, *, fd: int | None = None) -> None:
    import uvicorn

    config = uvicorn.Config(app(), host=host, port=port or 0, log_level="warning",
                            access_log=False, lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    if fd is None:
        server.run()
    else:  # the parent's listening socket: requests already waiting in it are served now
        server.run(sockets=[socket.socket(fileno=fd)])


def _answers(host: str, port: int) -> bool:
    """The server answers http (a connection alone only reaches the listening socket)."""
    with closing(socket.create_connection((host, port), timeout=2)) as s:
        s.sendall(b"GET /favicon.ico HTTP/1.0\r\nHost: %s\r\n\r\n" % host.encode())
        return s.recv(12).startswith(b"HTTP/")


class MiniWoBServer:
    """MiniWoB++ on a free loopback port in a child process; a context manager. With
    `wait=False` it returns as soon as the port listens (before the child serves)."""

    def __init__(self, host: str = "127.0.0.1", *, wait: bool = True) -> None:
        self.host = host
        self.port = 0
        self.urls: dict[str, str] = {}
        self.wait = wait
        self._proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return self.urls["miniwob"]

    def __enter__(self) -> MiniWoBServer:
        html_dir()  # a missing package is the user's error, said before any process starts
        with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as listener:
            listener.bind((self.host, 0))
            listener.listen(128)
            self.port = listener.getsockname()[1]
            fd = listener.fileno()
            cmd = [sys.executable, "-m", "webtraj.suites.miniwob", "serve", "--host",
                   self.host, "--fd", str(fd), "--parent-pid", str(os.getpid())]
            self._proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                          pass_fds=(fd,))
        self.urls = {"miniwob": f"http://{self.host}:{self.port}"}
        if self.wait and not self.wait_ready():
            self.stop()
            raise RuntimeError("the MiniWoB++ server did not start")
        return self

    def wait_ready(self, timeout: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            try:
                if _answers(self.host, self.port):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self) -> None:
        stop_child(self._proc)
        self._proc = None

    def __exit__(self, *exc: object) -> None:
        self.stop()
