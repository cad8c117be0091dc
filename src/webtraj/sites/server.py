"""Serving the five sites: blocking (`webtraj sites serve`) or as a child process for tests,
benchmarks and screenshots."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import socket
import subprocess
import sys
import time
from contextlib import closing

import uvicorn

from webtraj.runtime.children import stop_child
from webtraj.sites.common.dates import resolve_today
from webtraj.sites.inventory import build_inventory
from webtraj.sites.registry import SITE_CLASSES, make_sites, site_urls


async def serve_all(host: str, port_base: int, today: dt.date, seed: int) -> None:
    sites = make_sites(build_inventory(seed), today)
    servers = [uvicorn.Server(uvicorn.Config(
        site.app(), host=host, port=port_base + site.offset, log_level="warning",
        access_log=False, lifespan="off", timeout_graceful_shutdown=1))
        for site in sites.values()]
    await asyncio.gather(*(s.serve() for s in servers))


def _port_free(host: str, port: int) -> bool:
    """Whether the sites' server could listen there now (as it does, with SO_REUSEADDR: a port
    whose last connections are in TIME_WAIT is free again at once)."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def free_port_base(host: str = "127.0.0.1", count: int = len(SITE_CLASSES)) -> int:
    """A base port whose next `count` ports are all free right now."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 60000)
        if all(_port_free(host, base + i) for i in range(count)):
            return base
    raise RuntimeError("no free block of ports found on loopback")


class SitesProcess:
    """The five sites in a child process on free loopback ports; a context manager. The child
    is killed by the kernel if this process dies (see webtraj.runtime.children)."""

    def __init__(self, today: str | dt.date = "2026-01-15", seed: int = 0,
                 host: str = "127.0.0.1", port_base: int | None = None) -> None:
        self.today = resolve_today(today)
        self.seed = seed
        self.host = host
        # Ports to serve on when they are free (a resumed run keeps its sites' URLs).
        self.preferred_port_base = port_base
        self.port_base = 0
        self.urls: dict[str, str] = {}
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> SitesProcess:
        for attempt in range(3):
            preferred = self.preferred_port_base
            self.port_base = (preferred if attempt == 0 and preferred and all(
                _port_free(self.host, preferred + c.offset) for c in SITE_CLASSES)
                else free_port_base(self.host))
            cmd = [sys.executable, "-m", "webtraj.sites", "--host", self.host,
                   "--port-base", str(self.port_base), "--today", self.today.isoformat(),
                   "--seed", str(self.seed),
                   # The server dies with us, even when we are killed with SIGKILL.
                   "--parent-pid", str(os.getpid())]
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            self._proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE)
            if self._wait_ready():
                self.urls = site_urls(self.host, self.port_base)
                return self
            self.stop()
        raise RuntimeError("the sandbox sites did not start")

    def _wait_ready(self, timeout: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout
        ports = [self.port_base + c.offset for c in SITE_CLASSES]
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            if all(not _port_free(self.host, p) and _connects(self.host, p) for p in ports):
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        stop_child(self._proc)
        self._proc = None

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _connects(host: str, port: int) -> bool:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0
