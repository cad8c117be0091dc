"""One writer per run: every command that writes a run holds an exclusive `flock` on the run's
`run.lock` for as long as it writes; a second writer is refused, naming the holder.

The kernel drops the lock when its holder exits however it exits (killed included), so a lock
is never stale: the pid, host and command written into the file only say who holds it. The
file itself is never removed (removing it would let two writers lock two different files)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from pathlib import Path

from pydantic import ValidationError

from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError

LOCK_FILE = "run.lock"


class LockHolder(FrozenModel):
    """Who holds a run's lock (written into the lock file by the holder)."""

    pid: int
    host: str
    command: str = ""
    since: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        what = f" ({self.command})" if self.command else ""
        return f"process {self.pid} on {self.host}{what}, since {when}"


class RunLockedError(InputError):
    """Another process is writing this run."""

    def __init__(self, root: Path, holder: LockHolder | None) -> None:
        self.holder = holder
        who = holder.describe() if holder else "another process (it has not said which yet)"
        super().__init__(f"the run is being written by {who}; wait for it to finish (one "
                         "writer per run)", file=root)


class RunLock:
    """The exclusive write lock of the run at `root` (created if missing)."""

    def __init__(self, root: Path, command: str = "") -> None:
        self.root = Path(root)
        self.path = self.root / LOCK_FILE
        self.command = command
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> RunLock:
        """Take the lock now or raise RunLockedError (never waits)."""
        if self._fd is not None:
            return self
        self.root.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                raise RunLockedError(self.root, holder) from None
            except BaseException:
                os.close(fd)
                raise
            # The folder may have been removed (a failed first run cleans up after itself)
            # between our open and our lock: then we hold a lock nobody else can see.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
            self.root.mkdir(parents=True, exist_ok=True)
        holder = LockHolder(pid=os.getpid(), host=socket.gethostname(), command=self.command,
                            since=time.time())
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.model_dump_json().encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the descriptor drops the flock
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(fd: int) -> LockHolder | None:
    """The holder's self-description; None while it has not written it yet."""
    try:
        data = os.pread(fd, 4096, 0)
        return LockHolder.model_validate_json(data) if data.strip() else None
    except (OSError, ValidationError):
        return None

