"""A run on disk: `run.json`, one folder per trajectory, and `index.sqlite`.

A trajectory folder is built under a temporary name and renamed into place, so a crash at
any moment leaves either the whole trajectory or none of it. The index can be rebuilt from
the folders.

One writer per run: a store opened for writing (`create`, `open_or_create`,
`open(write=True)`) holds the run's lock (store.lock) until it is closed, and only then
reconciles the run (temporaries left by a writer that died, folders it left unindexed). A
store opened for reading changes nothing: not the folders, not the index (read through a
read-only connection), so a reader never disturbs a live writer."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from webtraj.model.errors import InputError
from webtraj.model.redact import Redactor
from webtraj.model.run import RunInfo
from webtraj.model.score import Score
from webtraj.model.trajectory import Trajectory
from webtraj.store.atomic import write_bytes_atomic
from webtraj.store.files import TRAJECTORIES, NotInRun, TrajectoryFiles
from webtraj.store.index import RunIndex, TrajectoryRow
from webtraj.store.lock import LOCK_FILE, RunLock

RUN_JSON = "run.json"
INDEX_DB = "index.sqlite"
TRAJECTORY_JSON = "trajectory.json"
_TMP_PREFIX = ".tmp-"
# Artifacts that are JSON documents and may carry credentials (HAR, logs, configs).
_JSON_ARTIFACTS = (".har", ".json")

Artifact = bytes | str | Path


class RunExistsError(FileExistsError):
    pass


class DuplicateTrajectoryError(ValueError):
    pass


class ReadOnlyRunError(RuntimeError):
    """A write through a store opened for reading (a programming error, not bad input)."""


@dataclass(frozen=True)
class CorruptTrajectory:
    trajectory_id: str
    error: InputError


class RunStore:
    def __init__(self, root: Path, info: RunInfo, redactor: Redactor, *,
                 lock: RunLock | None = None, index: RunIndex | None = None,
                 staged: bool = False) -> None:
        self.root = root
        self._info = info
        self.redactor = redactor
        self._lock = lock
        self.index = index if index is not None else RunIndex(root / INDEX_DB, redactor)
        self.corrupt: list[CorruptTrajectory] = []
        # Readable folders a crash left out of the index (a reader lists them; the next
        # writer indexes them).
        self.unindexed: list[str] = []
        # A new run whose run.json is not written yet (see `create(staged=True)`).
        self._staged = staged
        self._made_root = self._made_lock = False

    # --- opening ------------------------------------------------------------------------
    @classmethod
    def create(cls, root: str | Path, info: RunInfo | None = None, *,
               redactor: Redactor | None = None, command: str = "",
               staged: bool = False) -> RunStore:
        """A new run at `root`, locked for writing. `staged`: run.json is written only by
        `publish()` (or the first trajectory), so a command that fails before its first
        episode leaves no run of its own (`abandon()` removes what it made)."""
        root = Path(root)
        made_root = not root.exists()
        made_lock = not (root / LOCK_FILE).exists()
        lock = RunLock(root, command or (info.command if info else "")).acquire()
        try:
            if (root / RUN_JSON).exists():
                raise RunExistsError(f"{root} already holds a run; open it to resume")
            (root / TRAJECTORIES).mkdir(parents=True, exist_ok=True)
            redactor = redactor or Redactor()
            store = cls(root, info or RunInfo(name=root.name), redactor, lock=lock,
                        index=RunIndex(root / INDEX_DB, redactor), staged=staged)
        except BaseException:
            lock.release()
            raise
        store._made_root, store._made_lock = made_root, made_lock
        store.reconcile()
        if not staged:
            store._write_info()
        return store

    @classmethod
    def open(cls, root: str | Path, *, redactor: Redactor | None = None,
             write: bool = False, command: str = "") -> RunStore:
        """Open a run for reading (the default: nothing on disk changes) or, with `write`,
        for writing: then this store holds the run's lock (RunLockedError if another
        process does) and reconciles the run."""
        root = Path(root)
        run_json = root / RUN_JSON
        if not run_json.exists():
            raise InputError("not a webtraj run (no run.json)", file=root)
        redactor = redactor or Redactor()
        if not write:
            info = RunInfo.load(run_json)
            store = cls(root, info, redactor, index=_read_index(root, redactor))
            store._survey(fix=False)
            return store
        lock = RunLock(root, command).acquire()
        try:
            info = RunInfo.load(run_json)
            store = cls(root, info, redactor, lock=lock)
        except BaseException:
            lock.release()
            raise
        store.reconcile()
        return store

    @classmethod
    def open_or_create(cls, root: str | Path, info: RunInfo | None = None, *,
                       redactor: Redactor | None = None, command: str = "",
                       staged: bool = False) -> RunStore:
        """The run at `root` opened for writing, or a new one (see `create`)."""
        root = Path(root)
        command = command or (info.command if info else "")
        if (root / RUN_JSON).exists():
            return cls.open(root, redactor=redactor, write=True, command=command)
        try:
            return cls.create(root, info, redactor=redactor, command=command, staged=staged)
        except RunExistsError:  # another writer made it meanwhile (and has finished)
            return cls.open(root, redactor=redactor, write=True, command=command)

    @property
    def writable(self) -> bool:
        return self._lock is not None and self._lock.held

    @property
    def staged(self) -> bool:
        """True while a new run's run.json is not written yet."""
        return self._staged

    def publish(self) -> None:
        """Write a staged run's run.json: from now on the folder is a run."""
        if self._staged:
            self._staged = False
            self._write_info()

    def abandon(self) -> None:
        """Close a staged run that never got its first episode and remove what creating it
        made (nothing of a folder that held other files stays touched)."""
        if not self._staged:
            self.close()
            return
        self.index.close()
        for name in (INDEX_DB, f"{INDEX_DB}-wal", f"{INDEX_DB}-shm"):
            (self.root / name).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.root / TRAJECTORIES).rmdir()  # only if empty
        if self._made_lock:  # still held: a writer that opened it meanwhile retries
            (self.root / LOCK_FILE).unlink(missing_ok=True)
        if self._made_root:
            with contextlib.suppress(OSError):
                self.root.rmdir()
        self._release()

    def close(self) -> None:
        self.index.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_writer(self) -> None:
        if not self.writable:
            raise ReadOnlyRunError(f"{self.root} was opened for reading; open it with "
                                   "write=True to change it")

    # --- run info -----------------------------------------------------------------------
    @property
    def info(self) -> RunInfo:
        return self._info

    def update_info(self, **changes: object) -> RunInfo:
        self._require_writer()
        self._info = self._info.model_copy(update=changes)
        RunInfo.model_validate(self._info.model_dump())  # re-check the updated values
        if not self._staged:
            self._write_info()
        return self._info

    def _write_info(self) -> None:
        data = self.redactor.data(self._info.model_dump(mode="json", exclude_none=True))
        write_bytes_atomic(self.root / RUN_JSON, orjson.dumps(data, option=orjson.OPT_INDENT_2))

    # --- trajectories -------------------------------------------------------------------
    def trajectory_dir(self, trajectory_id: str) -> Path:
        return self.root / TRAJECTORIES / trajectory_id

    def add_trajectory(self, traj: Trajectory, artifacts: Mapping[str, Artifact] | None = None,
                       *, replace: bool = False) -> Path:
        """Write a trajectory folder atomically, then index it."""
        self._require_writer()
        self.publish()
        final = self.trajectory_dir(traj.trajectory_id)
        if final.exists() and not replace:
            raise DuplicateTrajectoryError(
                f"trajectory {traj.trajectory_id} is already in {self.root}")
        # Named by a uuid alone: the id may be as long as a file name can be.
        tmp = self.root / TRAJECTORIES / f"{_TMP_PREFIX}{uuid.uuid4().hex}"
        tmp.mkdir(parents=True)
        try:
            for name, content in (artifacts or {}).items():
                self._write_artifact(tmp, name, content)
            data = self.redactor.data(traj.model_dump(mode="json", exclude_none=True))
            (tmp / TRAJECTORY_JSON).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))
            if final.exists():
                old = final.with_name(f"{_TMP_PREFIX}old-{uuid.uuid4().hex}")
                os.rename(final, old)
                os.rename(tmp, final)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.index.upsert_trajectory(traj)
        return final

    def _write_artifact(self, folder: Path, name: str, content: Artifact) -> None:
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts or name in ("", TRAJECTORY_JSON):
            raise ValueError(f"invalid artifact name {name!r}")
        dest = folder / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            data = content.read_bytes()
        elif isinstance(content, str):
            data = content.encode()
        else:
            data = content
        if dest.suffix.lower() in _JSON_ARTIFACTS:
            data = self.redactor.json_bytes(data)
        dest.write_bytes(data)

    def load_trajectory(self, trajectory_id: str) -> Trajectory:
        return load_trajectory(self.root, trajectory_id)

    def reconcile(self) -> None:
        """Index folders that a crash left unindexed, drop half-written temporaries, and
        record folders whose trajectory.json cannot be read. Only the lock holder does this:
        while it holds the lock no other writer is alive, so every temporary is a dead
        writer's."""
        self._require_writer()
        (self.root / TRAJECTORIES).mkdir(exist_ok=True)
        self._survey(fix=True)

    def _survey(self, *, fix: bool) -> None:
        """Find unindexed and unreadable folders; with `fix` (a writer) also index them and
        drop temporaries. A reader's survey only lists them (`corrupt`, `unindexed`)."""
        folder = self.root / TRAJECTORIES
        self.corrupt = []
        self.unindexed = []
        if not folder.is_dir():
            return
        indexed = self.index.trajectory_ids()
        for entry in folder.iterdir():
            if entry.name.startswith(_TMP_PREFIX):
                if fix:
                    shutil.rmtree(entry, ignore_errors=True)
                continue
            if not entry.is_dir() or entry.name in indexed:
                continue
            try:
                traj = load_trajectory(self.root, entry.name)
            except InputError as exc:
                self.corrupt.append(CorruptTrajectory(entry.name, exc))
                continue
            if fix:
                self.index.upsert_trajectory(traj)
            else:
                self.unindexed.append(entry.name)

    def rows(self, **filters: object) -> Iterator[TrajectoryRow]:
        return self.index.rows(**filters)

    def iter_trajectories(self, *, errors: list[CorruptTrajectory] | None = None,
                          **filters: object) -> Iterator[Trajectory]:
        """Stream trajectories one at a time. Unreadable ones go to `errors` when given,
        otherwise raise."""
        for row in self.index.rows(**filters):
            try:
                yield self.load_trajectory(row.trajectory_id)
            except InputError as exc:
                if errors is None:
                    raise
                errors.append(CorruptTrajectory(row.trajectory_id, exc))

    def completed(self, *, agent: str | None = None,
                  retry_failed: bool = False) -> set[tuple[str, int]]:
        """(task_id, trial) pairs already in the run (of one agent, when given), for resuming;
        with `retry_failed`, episodes that ended in an error or a timeout are not counted."""
        return self.index.completed(agent=agent, retry_failed=retry_failed)

    def __len__(self) -> int:
        return self.index.conn.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]

    # --- scores -------------------------------------------------------------------------
    def add_scores(self, items: Iterable[tuple[str, Score]]) -> int:
        """Store scores for trajectories (by id) in one transaction. Old scores stay."""
        self._require_writer()
        rowids = self.index.rowids()

        def resolve() -> Iterator[tuple[int, Score]]:
            for tid, score in items:
                rowid = rowids.get(tid)
                if rowid is None:
                    raise KeyError(f"no trajectory {tid!r} in {self.root}")
                yield rowid, score

        return self.index.add_scores(resolve())

    def scores(self, trajectory_id: str, *, evaluator: str | None = None,
               latest_only: bool = True) -> list[Score]:
        rowid = self.index.rowid(trajectory_id)
        if rowid is None:
            raise KeyError(f"no trajectory {trajectory_id!r} in {self.root}")
        return self.index.scores(rowid, evaluator=evaluator, latest_only=latest_only)


def load_trajectory(root: Path, trajectory_id: str) -> Trajectory:
    """A stored trajectory, its trajectory.json read through `store.files` (a linked file or
    folder is refused); InputError naming the file and why."""
    path = root / TRAJECTORIES / trajectory_id / TRAJECTORY_JSON
    try:
        data = TrajectoryFiles(root, trajectory_id).read(TRAJECTORY_JSON)
    except NotInRun as exc:
        raise InputError(f"not read: {exc}", file=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    return Trajectory.from_json_bytes(data, file=path)


def _read_index(root: Path, redactor: Redactor) -> RunIndex:
    """The run's index through a read-only connection; a run without one (its index lost)
    gets one built in memory from its folders, so reading it still changes nothing."""
    if (root / INDEX_DB).is_file():
        return RunIndex(root / INDEX_DB, redactor, read_only=True)
    index = RunIndex(":memory:", redactor)
    folder = root / TRAJECTORIES
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        if entry.is_dir() and not entry.name.startswith(_TMP_PREFIX):
            with contextlib.suppress(InputError):
                index.upsert_trajectory(load_trajectory(root, entry.name))
    return index


def find_runs(root: str | Path, *, max_depth: int = 3) -> list[Path]:
    """Run directories (holding run.json) at or below root."""
    root = Path(root)
    found: list[Path] = []
    if (root / RUN_JSON).is_file():
        return [root]

    def walk(p: Path, depth: int) -> None:
        if depth > max_depth:
            return
        try:
            children = sorted(c for c in p.iterdir() if c.is_dir() and not c.name.startswith("."))
        except OSError:
            return
        for c in children:
            if (c / RUN_JSON).is_file():
                found.append(c)
            elif c.name != TRAJECTORIES:
                walk(c, depth + 1)

    walk(root, 1)
    return found
