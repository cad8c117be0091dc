"""A `webtraj run` killed with SIGKILL leaves nothing behind: the sandbox sites stop listening
and no child (sites server, worker, browser) outlives it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from factories import SANDBOX_TODAY, wait_until

if not os.path.exists("/usr/bin/chromium") or not sys.platform.startswith("linux"):
    pytest.skip("needs Linux and Debian Chromium", allow_module_level=True)


def _status(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a live process; None when gone (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[1]), fields[0]) if fields[0] != "Z" else None


def descendants(root: int) -> dict[int, str]:
    """Every live process below `root`, with its command line."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (st := _status(int(entry.name))) is not None:
            parents[int(entry.name)] = st[0]
    found, frontier = {}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                try:
                    cmd = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
                except OSError:
                    continue
                found[child] = cmd.decode(errors="replace")
                frontier.append(child)
    return found


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_sigkill_of_run_leaves_no_process_and_no_listening_port(tmp_path):
    webtraj = Path(sys.executable).parent / "webtraj"
    log = (tmp_path / "run.log").open("wb")
    run = subprocess.Popen(
        [str(webtraj), "run", "--suite", "booking", "--agent", "heuristic", "--workers", "1",
         "--limit", "30", "--no-eval", "--today", SANDBOX_TODAY, "--out", str(tmp_path / "run")],
        stdout=log, stderr=subprocess.STDOUT)
    tree: dict[int, str] = {}
    try:
        # Wait until the sites serve and the worker's browser is up: the whole tree exists.
        def started() -> bool:
            tree.update(descendants(run.pid))
            return (any("webtraj.sites" in c for c in tree.values())
                    and any("chromium" in c for c in tree.values()))

        assert wait_until(started, 90), (tree, (tmp_path / "run.log").read_text())
        assert run.poll() is None, "the run ended before it could be killed"
        sites_cmd = next(c for c in tree.values() if "webtraj.sites" in c).split()
        base = int(sites_cmd[sites_cmd.index("--port-base") + 1])
        ports = range(base, base + 5)
        assert all(_accepts(p) for p in ports)
        kids = set(tree)

        os.kill(run.pid, signal.SIGKILL)
        run.wait()

        gone = wait_until(lambda: all(_status(p) is None for p in kids), 30)
        survivors = {p: tree[p] for p in kids if _status(p) is not None}
        assert gone, f"children outlived the run: {survivors}"
        assert not any(_accepts(p) for p in ports)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for pid in tree:  # never leave a process behind, even when the test fails
            if _status(pid) is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        log.close()
