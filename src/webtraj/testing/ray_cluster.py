"""A real multi-node Ray cluster on one machine, for tests and benchmarks: `ray start --head`
plus more nodes joining it, each with its own temp dir, on loopback, in process groups of
their own (so stopping it never touches another Ray on the machine)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import closing, suppress
from pathlib import Path


class LocalRayCluster:
    """`with LocalRayCluster(nodes=2) as c:` — `c.address` to join; `c.scratch[i]` is node i's
    TMPDIR (where its workers make their temporary folders, unknown to the driver)."""

    def __init__(self, nodes: int = 2, cpus_per_node: int = 1,
                 root: str | Path | None = None) -> None:
        self.nodes = nodes
        self.cpus = cpus_per_node
        self.root = Path(root or tempfile.mkdtemp(prefix="webtraj-ray-"))
        self.address = ""
        self.scratch: list[Path] = []
        self._groups: list[int] = []

    def __enter__(self) -> LocalRayCluster:
        ray_bin = str(Path(sys.executable).parent / "ray")
        port = _free_port()
        self.address = f"127.0.0.1:{port}"
        # A loaded machine (tests beside other work) registers a node slowly: wait longer.
        env = {"RAY_raylet_start_wait_time_s": "120", **os.environ, "RAY_AUTH_MODE": "disabled"}
        common = ["--node-ip-address=127.0.0.1", f"--num-cpus={self.cpus}",
                  "--disable-usage-stats"]
        try:
            for i in range(self.nodes):
                temp, scratch = self.root / f"node{i}", self.root / f"scratch{i}"
                temp.mkdir(parents=True, exist_ok=True)
                scratch.mkdir(parents=True, exist_ok=True)
                self.scratch.append(scratch)
                role = ([f"--port={port}", "--head", "--include-dashboard=false"] if i == 0
                        else [f"--address={self.address}"])
                proc = subprocess.Popen([ray_bin, "start", *role, f"--temp-dir={temp}",
                                         *common], env={**env, "TMPDIR": str(scratch)},
                                        start_new_session=True, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
                self._groups.append(proc.pid)
                _, err = proc.communicate(timeout=180)
                if proc.returncode != 0:
                    raise RuntimeError(f"ray start failed: {err.decode(errors='replace')[-2000:]}")
        except BaseException:
            self.stop()
            raise
        return self

    def kill_node(self, i: int) -> list[int]:
        """SIGKILL node i (not the head) as a lost machine dies: its raylet, object store,
        workers and everything they started, even in groups of their own (browsers).
        Returns the pids killed."""
        if i == 0:
            raise ValueError("node 0 is the head: kill a worker node")
        pgid = self._groups[i]
        pids = _descendants({pid for pid in _pids() if _pgid(pid) == pgid})
        for pid in pids:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self._groups[i] = -1
        return sorted(pids)

    def stop(self) -> None:
        for pgid in self._groups:
            if pgid < 0:  # killed already
                continue
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        self._groups.clear()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _pgid(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[2]) if fields else None


def _descendants(roots: set[int]) -> set[int]:
    """`roots` and every process below them."""
    children: dict[int, list[int]] = {}
    for pid in _pids():
        if (fields := _stat(pid)) is not None:
            children.setdefault(int(fields[1]), []).append(pid)
    found, stack = set(roots), list(roots)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found
