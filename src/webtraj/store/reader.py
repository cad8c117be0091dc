"""Read-only access to a stored run for bulk jobs (curation): trajectory ids in a fixed order,
and a chunk of trajectories with their scores, read from the run's files and index through a
read-only connection (no reconciliation or writes, so Ray workers can read one run at once).

Of several stored scores by one evaluator, the newest with per-step values is used (a newer
final-only score does not hide an older curve); without any, the newest."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from webtraj.model.errors import InputError
from webtraj.model.score import Score, StepMatches
from webtraj.model.trajectory import Trajectory
from webtraj.store.files import NotInRun, RunTrajectories
from webtraj.store.index import connect_read_only, score_matches_from_row
from webtraj.store.run_store import INDEX_DB, TRAJECTORIES, TRAJECTORY_JSON

__all__ = ["INDEX_DB", "TRAJECTORIES", "TRAJECTORY_JSON", "Loaded", "RawChunk", "load_chunk",
           "missing_curves", "parse_chunk", "read_chunk", "trajectory_items"]
_IN_LIMIT = 500


@dataclass(frozen=True)
class Loaded:
    trajectory_id: str
    trajectory: Trajectory | None
    # evaluator name -> chosen score, without its step checks (read into `step_matches`)
    scores: dict[str, Score]
    error: str | None = None
    # evaluator name -> per observation, which constraints the score found met
    step_matches: dict[str, StepMatches] = field(default_factory=dict)
    # The trajectory's folder (its screenshots), as the chunk's reader named it.
    folder: str | None = None


def connect_ro(root: Path) -> sqlite3.Connection:
    """The run's index, read-only, once its version is one this webtraj reads."""
    return connect_read_only(root / INDEX_DB)


def trajectory_items(root: Path) -> list[tuple[str, str]]:
    """(trajectory_id, task_id) of every indexed trajectory, sorted by trajectory id: the
    output order, independent of the order the run was written in."""
    with connect_ro(root) as conn:
        rows = conn.execute("SELECT trajectory_id, task_id FROM trajectories").fetchall()
    return sorted(rows)


def missing_curves(root: Path, evaluator: str) -> list[tuple[str, str]]:
    """Trajectories with no `evaluator` score that has per-step values, less those whose
    stored score of `evaluator` scoring again would give unchanged: an episode that ended in
    an error with its error score (an errored episode is never judged), and an unscored
    decision that judged no constraint (the task has none, there was no observation; the
    trajectory alone decides it, whatever the steps setting). Only an evaluator's failure
    (an error score of a finished episode) or a score without its curve is scored again."""
    with connect_ro(root) as conn:
        rows = conn.execute(
            "SELECT trajectory_id, task_id FROM trajectories t WHERE NOT EXISTS ("
            "SELECT 1 FROM score_sets s WHERE s.traj = t.id AND s.evaluator = ?1 "
            "AND (s.steps IS NOT NULL OR (t.error IS NOT NULL AND s.error) "
            "OR (s.value IS NULL AND NOT s.error AND NOT s.has_constraints)))",
            (evaluator,)).fetchall()
    return sorted(rows)


@dataclass(frozen=True)
class RawChunk:
    """A chunk as read from the run, unparsed: what travels to a worker on another machine
    (which cannot read the run's disk) through Ray's object store."""

    root: str
    # (trajectory id, trajectory.json bytes or None, why it could not be read)
    files: tuple[tuple[str, bytes | None, str | None], ...]
    # The chosen score row of each (trajectory, evaluator): id, evaluator, value, reason,
    # error, steps, body.
    score_rows: tuple[tuple, ...]


def read_chunk(root: Path, ids: Sequence[str], evaluators: Sequence[str]) -> RawChunk:
    """The chunk's trajectory.json files, each read through `store.files` (a linked file or
    folder is refused and named), and their chosen score rows."""
    with connect_ro(root) as conn:
        rows = _score_rows(conn, ids, evaluators)
    files = []
    with RunTrajectories(Path(root)) as run:
        for tid in ids:
            path = _trajectory_file(str(root), tid)
            try:
                files.append((tid, run.read(tid, TRAJECTORY_JSON), None))
            except NotInRun as exc:
                files.append((tid, None, str(InputError(f"not read: {exc}", file=path))))
            except OSError as exc:
                files.append((tid, None, str(InputError(f"cannot read: {exc.strerror}",
                                                        file=path))))
    return RawChunk(root=str(root), files=tuple(files), score_rows=tuple(rows))


def _trajectory_file(root: str, tid: str) -> str:
    """The file's path as text: joined as strings, not Path objects, whose parsing was a
    visible share of reading 150k small files."""
    return os.path.join(root, TRAJECTORIES, tid, TRAJECTORY_JSON)


def parse_chunk(raw: RawChunk) -> Iterator[Loaded]:
    """The chunk's trajectories one at a time (a consumer that drops most of them never
    holds them all parsed at once)."""
    scores: dict[str, dict[str, Score]] = {}
    matches: dict[str, dict[str, StepMatches]] = {}
    for tid, ev, *row in raw.score_rows:
        try:
            score, found = score_matches_from_row(ev, *row)
        except ValueError:
            continue  # an unreadable stored score counts as no score
        scores.setdefault(tid, {})[ev] = score
        if found is not None:
            matches.setdefault(tid, {})[ev] = found
    for tid, data, error in raw.files:
        if data is None:
            yield Loaded(tid, None, {}, error=error)
            continue
        try:
            traj = Trajectory.from_json_bytes(data, file=_trajectory_file(raw.root, tid))
        except InputError as exc:
            yield Loaded(tid, None, {}, error=str(exc))
            continue
        yield Loaded(tid, traj, scores.get(tid, {}), step_matches=matches.get(tid, {}),
                     folder=os.path.join(raw.root, TRAJECTORIES, tid))


def _score_rows(conn: sqlite3.Connection, ids: Sequence[str],
                evaluators: Sequence[str]) -> list[tuple]:
    chosen: dict[tuple[str, str], tuple] = {}
    for i in range(0, len(ids), _IN_LIMIT):
        part = ids[i:i + _IN_LIMIT]
        sql = ("SELECT t.trajectory_id, s.evaluator, s.value, s.reason, s.error, s.steps, "
               "s.body FROM score_sets s JOIN trajectories t ON t.id = s.traj WHERE "
               f"s.evaluator IN ({','.join('?' * len(evaluators))}) AND "
               f"t.trajectory_id IN ({','.join('?' * len(part))}) ORDER BY s.id")
        for row in conn.execute(sql, [*evaluators, *part]):
            key = (row[0], row[1])
            prev = chosen.get(key)
            # Newest with steps wins; otherwise newest.
            if prev is None or row[5] is not None or prev[5] is None:
                chosen[key] = row
    return [(tid, ev, *row[2:]) for (tid, ev), row in chosen.items()]


def load_chunk(root: Path, ids: Sequence[str], evaluators: Sequence[str]) -> Iterator[Loaded]:
    return parse_chunk(read_chunk(root, ids, evaluators))
