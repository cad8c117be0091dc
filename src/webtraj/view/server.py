"""Serving the viewer: bind the socket first (a busy port is a clear error, port 0 picks a
free one), refuse a non-loopback address unless the caller chose it explicitly, then run
uvicorn on that socket."""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from pathlib import Path

import uvicorn

from webtraj.view.app import create_app
from webtraj.view.runs import DAMAGE, Catalog, connect, damage_text
from webtraj.view.stats import run_stats

log = logging.getLogger("webtraj.view")


class ViewerError(RuntimeError):
    """The viewer cannot start (busy port, refused address, no runs folder)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int, *, allow_remote: bool = False) -> socket.socket:
    if not is_loopback(host) and not allow_remote:
        raise ViewerError(f"refusing to serve on {host}: the viewer binds to loopback only "
                          "unless --host is given explicitly")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ViewerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def allowed_hosts(sock: socket.socket) -> set[str]:
    """Host header values the viewer answers: its bound address, localhost, 127.0.0.1 and
    [::1], each with its port (and without it on port 80, as browsers send it)."""
    host, port = sock.getsockname()[:2]
    names = {f"[{host}]" if ":" in host else host, "localhost", "127.0.0.1", "[::1]"}
    out = {f"{n}:{port}" for n in names}
    if port == 80:
        out |= names
    return out


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


class Viewer:
    """A viewer on a bound socket; `run()` blocks, `start()`/`stop()` run it in a thread
    (tests, notebooks)."""

    def __init__(self, sources: list[Path], *, host: str = "127.0.0.1", port: int = 0,
                 allow_remote: bool = False) -> None:
        missing = [s for s in sources if not Path(s).exists()]
        if missing:
            raise ViewerError(f"no such folder: {missing[0]}")
        self.sock = bind(host, port, allow_remote=allow_remote)
        self.url = url_of(self.sock)
        app = create_app([Path(s) for s in sources], allowed_hosts=allowed_hosts(self.sock))
        config = uvicorn.Config(app, log_level="warning",
                                access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.sources = [Path(s) for s in sources]
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._warmer = threading.Thread(target=self._warm, name="webtraj-view-warm",
                                        daemon=True)

    def _warm(self) -> None:
        """Compute every run's summary tables once in the background, so the first visit to
        a large run's page does not wait for them."""
        try:
            refs = Catalog(self.sources).refs()
        except OSError as exc:
            log.warning("viewer: cannot list the runs to warm up: %s", exc)
            return
        for ref in refs:
            if self._stop.is_set():
                return
            try:
                index = connect(ref)
                if index is None:
                    continue
                with index:
                    run_stats(ref.root, index)
            except DAMAGE as exc:  # the runs page lists it as damaged, with this reason
                log.warning("viewer: run %s is damaged: %s", ref.key, damage_text(exc))
            except Exception as exc:  # noqa: BLE001 - one run never stops the others
                log.error("viewer: warming up run %s failed: %s: %s", ref.key,
                          type(exc).__name__, exc)

    def run(self) -> None:
        self._warmer.start()
        try:
            self.server.run(sockets=[self.sock])
        finally:
            self.sock.close()

    def start(self) -> Viewer:
        self._thread = threading.Thread(target=self.run, name="webtraj-view", daemon=True)
        self._thread.start()
        while not self.server.started and self._thread.is_alive():
            self._thread.join(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        if self._warmer.is_alive():
            self._warmer.join(30)
        self.sock.close()

    def __enter__(self) -> Viewer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
