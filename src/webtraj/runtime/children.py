"""Child processes that never outlive the process that started them.

A parent killed with SIGKILL runs no cleanup code, so its children (the sandbox sites server,
local workers and through them their browsers) would be left running, still holding their
ports. On Linux the kernel can send a child a signal when its parent dies
(`prctl(PR_SET_PDEATHSIG)`); each child asks for SIGKILL as its first act. Elsewhere this is a
no-op. The signal follows the parent *thread* that started the child, so start children from
a thread that lives as long as they should.

A `spawn` child of multiprocessing runs the parent's main module again before its target
(so that functions defined there can be found). webtraj's children take their targets from
webtraj's own modules, and the parent's main module is usually the `webtraj` console script,
which imports the whole command line: about a second of a core in every worker, before its
browser could start. `main_module_hidden` keeps it from being run again.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel kill this process when its parent (`parent_pid`) dies; exit at once if
    it already has (it may die between our start and this call)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:
        os._exit(1)


@contextlib.contextmanager
def main_module_hidden() -> Iterator[None]:
    """While it is open, a `spawn` child that is started does not run the parent's main
    module again (its target and arguments must not come from that module)."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    had_file = "__file__" in main.__dict__
    path, spec = main.__dict__.pop("__file__", None), getattr(main, "__spec__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__spec__ = spec
        if had_file:
            main.__file__ = path


def stop_child(proc: subprocess.Popen | None) -> None:
    """Terminate a child server, kill it if it does not go within 5 s, and reap it."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()
