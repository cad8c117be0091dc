"""Child processes that never outlive the process that started them.

A parent killed with SIGKILL runs no cleanup code, so its children (the sandbox sites server,
local workers and through them their browsers) would be left running, still holding their
ports. On Linux the kernel can send a child a signal when its parent dies
(`prctl(PR_SET_PDEATHSIG)`); each child asks for SIGKILL as its first act. Elsewhere this is a
no-op. The signal follows the parent *thread* that started the child, so start children from
a thread that lives as long as they should.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

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
