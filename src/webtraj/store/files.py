"""The one reader of a run's artifacts (trajectory.json, screenshots, HAR, ...): the viewer,
the WebArena-Verified export, `eval --run`'s scorers, curation and the store itself read a
trajectory's files only through it.

A run shared as a tarball may hold symlinks (`network.har -> ~/.ssh/id_rsa`,
`trajectories -> ~`), and a trajectory.json names its files (`network_trace`, screenshots)
with any text, an absolute path included. So a file is opened one path component at a time
from the run's folder, each with O_NOFOLLOW (a link anywhere inside the run is refused,
whatever it points to), its name must be a plain relative name (no `..`, no absolute path),
and it must be a regular file. Opening by descriptor leaves no window between the check and
the read."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from webtraj.model.errors import InputError

# The run's folder of trajectory folders (as run_store names it; run_store reads through here).
TRAJECTORIES = "trajectories"

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
CHUNK = 256 * 1024


class NotInRun(LookupError):
    """The path is not a regular file inside the run reached without a link (the reason
    says why, for the log and the 404 page; it never quotes the file's content)."""


class Missing(NotInRun):
    """The name is a plain one inside the run, and nothing is there (a file not kept)."""


def _refusal(exc: OSError) -> NotInRun:
    return (Missing if exc.errno == errno.ENOENT else NotInRun)(_why(exc))


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


class FolderFiles:
    """The files of one folder, `root/dirs...`: `root` is opened as given (the user's own path
    may pass through links), each of `dirs` and every name below it without following one."""

    def __init__(self, root: Path, dirs: Sequence[str] = ()) -> None:
        self.root = root
        self.dirs = list(dirs)
        self.path = root.joinpath(*self.dirs)  # for messages only

    def check(self) -> None:
        """Raise NotInRun unless the folder is a real directory inside the run."""
        try:
            os.close(_walk_dirs(self.root, self.dirs))
        except OSError as exc:
            raise _refusal(exc) from None

    def open(self, name: str) -> tuple[int, int]:
        """(descriptor, size) of a regular file of the folder; the caller closes it."""
        parts = parts_of(name)
        try:
            dfd = _walk_dirs(self.root, [*self.dirs, *parts[:-1]])
        except OSError as exc:
            raise _refusal(exc) from None
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dfd)
        except OSError as exc:
            raise _refusal(exc) from None
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

    def is_file(self, name: str) -> bool:
        """Whether `name` is a regular file of the folder reached without a link."""
        try:
            os.close(self.open(name)[0])
        except (NotInRun, OSError):
            return False
        return True

    def chunks(self, name: str) -> tuple[Iterator[bytes], int]:
        """The file as chunks for a streamed reply, and its size (opened now: a refusal is
        raised here, not while streaming)."""
        fd, size = self.open(name)

        def gen() -> Iterator[bytes]:
            with os.fdopen(fd, "rb") as f:
                while chunk := f.read(CHUNK):
                    yield chunk

        return gen(), size


class TrajectoryFiles(FolderFiles):
    """One trajectory folder of a run: `trajectories/<tid>` under the run's folder."""

    def __init__(self, run_root: Path, trajectory_id: str) -> None:
        if not trajectory_id or len(parts_of(trajectory_id)) != 1:
            raise NotInRun("not a trajectory id")
        super().__init__(run_root, [TRAJECTORIES, trajectory_id])
        self.run_root = run_root
        self.trajectory_id = trajectory_id


def artifact_files(folder: Path) -> FolderFiles:
    """The files of a trajectory's folder as scorers and exporters are given it: a run's
    `trajectories/<tid>` is walked from the run's folder (a linked `trajectories` or
    trajectory folder is refused, as in the viewer); any other folder (an episode's scratch)
    from itself."""
    if folder.parent.name == TRAJECTORIES and folder.name:
        return TrajectoryFiles(folder.parent.parent, folder.name)
    return FolderFiles(folder)


def read_artifact(folder: Path, name: str, limit: int | None = None) -> bytes:
    """A trajectory's file `name` (as its trajectory.json names it), read through
    `artifact_files`; InputError naming the file and why when it is refused or unreadable."""
    try:
        return artifact_files(folder).read(name, limit)
    except NotInRun as exc:
        raise InputError(f"not read: {exc}", file=_shown(folder, name)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=_shown(folder, name)
                         ) from None


def _shown(folder: Path, name: str) -> str:
    return f"{folder}/{name}" if not name.startswith("/") else f"{folder}: {name}"


class RunTrajectories:
    """trajectory.json files of many trajectories of one run (curation reads 150k): the
    `trajectories` folder is opened once (without following a link), each trajectory's folder
    and file without following one."""

    def __init__(self, run_root: Path) -> None:
        self.root = run_root
        self._fd: int | None = None

    def __enter__(self) -> RunTrajectories:
        try:
            self._fd = _walk_dirs(self.root, [TRAJECTORIES])
        except OSError as exc:
            self._error = _why(exc)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def read(self, trajectory_id: str, name: str) -> bytes:
        """The file's bytes; NotInRun (why) when refused, OSError when unreadable."""
        if self._fd is None:
            raise NotInRun(getattr(self, "_error", "the run's trajectories folder"))
        if not trajectory_id or len(parts_of(trajectory_id)) != 1 or len(parts_of(name)) != 1:
            raise NotInRun("not a plain relative file name")
        try:
            dfd = os.open(trajectory_id, _DIR_FLAGS, dir_fd=self._fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _refusal(exc) from None
            raise
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _refusal(exc) from None
            raise
        finally:
            os.close(dfd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise NotInRun("not a regular file")
            os.set_blocking(fd, True)
            data = os.read(fd, st.st_size)
            while len(data) < st.st_size and (more := os.read(fd, st.st_size - len(data))):
                data += more
            return data
        finally:
            os.close(fd)


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link inside the run"
    if exc.errno == errno.ENOTDIR:
        return "not a folder (or a link to one)"
    return exc.strerror or "cannot be opened"
