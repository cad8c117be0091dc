"""Reading files of a run without following links: a run shared as a tarball may hold
symlinks (`trajectories -> ~`), so every file the viewer reads or serves from a trajectory
folder is opened one path component at a time from the run's folder, each with O_NOFOLLOW
(a link anywhere inside the run is refused, whatever it points to), and must be a regular
file. Opening by descriptor leaves no window between the check and the read."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from webtraj.store.run_store import TRAJECTORIES

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
CHUNK = 256 * 1024


class NotInRun(LookupError):
    """The path is not a regular file inside the run reached without a link (the reason
    says why, for the log and the 404 page; it never quotes the file's content)."""


def parts_of(name: str) -> list[str]:
    """A relative name's components; anything that could step out ('..', absolute, empty
    components, backslashes, NUL) is refused."""
    if not name or "\x00" in name or "\\" in name or name.startswith("/"):
        raise NotInRun("not a relative file name")
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise NotInRun("not a plain relative file name")
    return parts


def _walk_dirs(root: Path, dirs: list[str]) -> int:
    """A descriptor of root/dirs..., each component opened without following a link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for d in dirs:
            nxt = os.open(d, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


class TrajectoryFiles:
    """One trajectory folder of a run: `trajectories/<tid>` under the run's folder."""

    def __init__(self, run_root: Path, trajectory_id: str) -> None:
        if not trajectory_id or len(parts_of(trajectory_id)) != 1:
            raise NotInRun("not a trajectory id")
        self.run_root = run_root
        self.trajectory_id = trajectory_id
        self.path = run_root / TRAJECTORIES / trajectory_id  # for messages only

    def check(self) -> None:
        """Raise NotInRun unless the folder is a real directory inside the run."""
        try:
            os.close(_walk_dirs(self.run_root, [TRAJECTORIES, self.trajectory_id]))
        except OSError as exc:
            raise NotInRun(_why(exc)) from None

    def open(self, name: str) -> tuple[int, int]:
        """(descriptor, size) of a regular file of the folder; the caller closes it."""
        parts = parts_of(name)
        try:
            dfd = _walk_dirs(self.run_root, [TRAJECTORIES, self.trajectory_id, *parts[:-1]])
        except OSError as exc:
            raise NotInRun(_why(exc)) from None
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dfd)
        except OSError as exc:
            raise NotInRun(_why(exc)) from None
        finally:
            os.close(dfd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise NotInRun("not a regular file")
        os.set_blocking(fd, True)
        return fd, st.st_size

    def read(self, name: str, limit: int | None = None) -> bytes:
        """The file's bytes (at most `limit`)."""
        fd, size = self.open(name)
        with os.fdopen(fd, "rb") as f:
            return f.read(size if limit is None else min(size, limit))

    def chunks(self, name: str) -> tuple[Iterator[bytes], int]:
        """The file as chunks for a streamed reply, and its size (opened now: a refusal is
        raised here, not while streaming)."""
        fd, size = self.open(name)

        def gen() -> Iterator[bytes]:
            with os.fdopen(fd, "rb") as f:
                while chunk := f.read(CHUNK):
                    yield chunk

        return gen(), size


def _why(exc: OSError) -> str:
    import errno

    if exc.errno == errno.ELOOP:
        return "a symbolic link inside the run"
    if exc.errno == errno.ENOTDIR:
        return "not a folder (or a link to one)"
    return exc.strerror or "cannot be opened"
