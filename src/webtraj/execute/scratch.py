"""Scratch folders of running processes: where workers write an episode's artifacts, journals
and downloads until the store takes them. Each is owned by one process and removed when that
process is gone.

A run (or a Ray actor) makes its scratch folder in the system's temporary folder and removes it
when it ends. A process killed with SIGKILL cannot remove it, so the folder records its owner:
`owner.json` holds the owner's pid and host, and the owner holds an exclusive `flock` on it for
as long as it lives (the kernel drops the lock however the owner exits). Every new scratch
folder first sweeps the stale ones: a folder is removed only when nobody holds its lock and its
recorded owner pid is not alive on this host, so a live run's folder is never touched (a
folder still being made, with no owner written yet, is left for a later sweep)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

from pydantic import ValidationError

from webtraj.model.base import FrozenModel

SCRATCH_PREFIX = "webtraj-scratch-"
OWNER_FILE = "owner.json"


class ScratchOwner(FrozenModel):
    """Who owns a scratch folder (written into it by the owner, under its lock)."""

    pid: int
    host: str
    since: float


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def _stale(folder: Path) -> bool:
    """Nobody holds the folder's lock and its recorded owner is gone from this host."""
    try:
        fd = os.open(folder / OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False  # no owner written yet (being made) or not ours to judge
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its owner is alive and holds it
        try:
            owner = ScratchOwner.model_validate_json(os.read(fd, 4096))
        except (ValidationError, ValueError):
            return False  # the owner has not written itself yet
        return owner.host == socket.gethostname() and not _pid_alive(owner.pid)
    finally:
        os.close(fd)


def sweep_stale_scratch(parent: Path | None = None, prefix: str = SCRATCH_PREFIX
                        ) -> list[Path]:
    """Remove this user's scratch folders under `parent` (the temporary folder) whose owner
    process is gone; returns the folders removed."""
    parent = Path(parent or tempfile.gettempdir())
    removed = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return []
    uid = os.getuid()
    for folder in candidates:
        try:
            st = folder.lstat()
        except OSError:
            continue
        if not folder.is_dir() or folder.is_symlink() or st.st_uid != uid:
            continue
        if _stale(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


class OwnedScratch:
    """A scratch folder this process owns: made (after sweeping stale ones) on entry, removed
    on exit; its lock is held until then."""

    def __init__(self, prefix: str = SCRATCH_PREFIX, parent: Path | None = None) -> None:
        self.prefix = prefix
        self.parent = parent
        self.path: Path | None = None
        self._fd: int | None = None

    def __enter__(self) -> Path:
        return self.make()

    def make(self) -> Path:
        sweep_stale_scratch(self.parent, self.prefix)
        path = Path(tempfile.mkdtemp(prefix=self.prefix, dir=self.parent))
        fd = os.open(path / OWNER_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)  # a sweep that opened it first lets go at once
        os.write(fd, ScratchOwner(pid=os.getpid(), host=socket.gethostname(),
                                  since=time.time()).model_dump_json().encode())
        self.path, self._fd = path, fd
        return path

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def remove(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
