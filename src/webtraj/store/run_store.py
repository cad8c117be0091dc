"""A run on disk: `run.json`, one folder per trajectory, and `index.sqlite`.

A trajectory folder is built under a temporary name and renamed into place, so a crash at
any moment leaves either the whole trajectory or none of it. The index can be rebuilt from
the folders; opening a run reconciles the two."""

from __future__ import annotations

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
from webtraj.store.index import RunIndex, TrajectoryRow

RUN_JSON = "run.json"
INDEX_DB = "index.sqlite"
TRAJECTORIES = "trajectories"
TRAJECTORY_JSON = "trajectory.json"
_TMP_PREFIX = ".tmp-"
# Artifacts that are JSON documents and may carry credentials (HAR, logs, configs).
_JSON_ARTIFACTS = (".har", ".json")

Artifact = bytes | str | Path


class RunExistsError(FileExistsError):
    pass


class DuplicateTrajectoryError(ValueError):
    pass


@dataclass(frozen=True)
class CorruptTrajectory:
    trajectory_id: str
    error: InputError


class RunStore:
    def __init__(self, root: Path, info: RunInfo, redactor: Redactor) -> None:
        self.root = root
        self._info = info
        self.redactor = redactor
        self.index = RunIndex(root / INDEX_DB)
        self.corrupt: list[CorruptTrajectory] = []

    # --- opening ------------------------------------------------------------------------
    @classmethod
    def create(cls, root: str | Path, info: RunInfo | None = None, *,
               redactor: Redactor | None = None) -> RunStore:
        root = Path(root)
        if (root / RUN_JSON).exists():
            raise RunExistsError(f"{root} already holds a run; open it to resume")
        (root / TRAJECTORIES).mkdir(parents=True, exist_ok=True)
        store = cls(root, info or RunInfo(name=root.name), redactor or Redactor())
        store._write_info()
        return store

    @classmethod
    def open(cls, root: str | Path, *, redactor: Redactor | None = None) -> RunStore:
        root = Path(root)
        run_json = root / RUN_JSON
        if not run_json.exists():
            raise InputError("not a webtraj run (no run.json)", file=root)
        store = cls(root, RunInfo.load(run_json), redactor or Redactor())
        store.reconcile()
        return store

    @classmethod
    def open_or_create(cls, root: str | Path, info: RunInfo | None = None, *,
                       redactor: Redactor | None = None) -> RunStore:
        root = Path(root)
        if (root / RUN_JSON).exists():
            return cls.open(root, redactor=redactor)
        return cls.create(root, info, redactor=redactor)

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- run info -----------------------------------------------------------------------
    @property
    def info(self) -> RunInfo:
        return self._info

    def update_info(self, **changes: object) -> RunInfo:
        self._info = self._info.model_copy(update=changes)
        RunInfo.model_validate(self._info.model_dump())  # re-check the updated values
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
        final = self.trajectory_dir(traj.trajectory_id)
        if final.exists() and not replace:
            raise DuplicateTrajectoryError(
                f"trajectory {traj.trajectory_id} is already in {self.root}")
        tmp = self.root / TRAJECTORIES / f"{_TMP_PREFIX}{traj.trajectory_id}-{uuid.uuid4().hex}"
        tmp.mkdir(parents=True)
        try:
            for name, content in (artifacts or {}).items():
                self._write_artifact(tmp, name, content)
            data = self.redactor.data(traj.model_dump(mode="json", exclude_none=True))
            (tmp / TRAJECTORY_JSON).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))
            if final.exists():
                old = final.with_name(f"{_TMP_PREFIX}old-{final.name}-{uuid.uuid4().hex}")
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
            data = self._redact_json_bytes(data, name)
        dest.write_bytes(data)

    def _redact_json_bytes(self, data: bytes, name: str) -> bytes:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            # Not JSON after all: still never write secrets in clear.
            return self.redactor.text(data.decode("utf-8", "replace")).encode()
        return orjson.dumps(self.redactor.data(obj))

    def load_trajectory(self, trajectory_id: str) -> Trajectory:
        return Trajectory.load(self.trajectory_dir(trajectory_id) / TRAJECTORY_JSON)

    def reconcile(self) -> None:
        """Index folders that a crash left unindexed, drop half-written temporaries, and
        record folders whose trajectory.json cannot be read."""
        folder = self.root / TRAJECTORIES
        folder.mkdir(exist_ok=True)
        indexed = self.index.trajectory_ids()
        self.corrupt = []
        for entry in folder.iterdir():
            if entry.name.startswith(_TMP_PREFIX):
                shutil.rmtree(entry, ignore_errors=True)
                continue
            if not entry.is_dir() or entry.name in indexed:
                continue
            try:
                traj = Trajectory.load(entry / TRAJECTORY_JSON)
            except InputError as exc:
                self.corrupt.append(CorruptTrajectory(entry.name, exc))
                continue
            self.index.upsert_trajectory(traj)

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
