"""The versions of a run's index (index.sqlite) and the upgrades between them, in one place.

Writers (`RunIndex` opened for writing: `RunStore.create`, `open(write=True)`) bring an
index to `CURRENT` when they open it; readers change nothing and read versions
`READABLE_FROM` to `CURRENT`, and name the command that upgrades an older index
(`UPGRADE_COMMAND`) instead of failing on a missing column or reading wrong numbers.

Versions (SQLite's `PRAGMA user_version`; versions 0 and 1 were both written with 0 and are
told apart by their columns):

- 0: per-step values one row each in a `step_scores` table, score bodies as JSON bytes.
- 1: per-step values packed in `score_sets.steps` with their kept sum and count; the
  viewer's `intent` and `answer` columns were added later in place (a reader of an index
  without them reads them as empty; a writer adds them).
- 2: summary tables kept current at store time (store.summary_tables) and the trigram search index
  (store.search).

Curation decisions (store.decisions) live in a table of their own that curation creates;
an index of any version without it has no decisions."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson

from webtraj.model.errors import InputError
from webtraj.model.score import Score
from webtraj.store import search, summary_tables

CURRENT = 2
READABLE_FROM = 1
UPGRADE_COMMAND = "webtraj runs upgrade"

SCHEMA = """
CREATE TABLE IF NOT EXISTS run (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trajectories (
    id INTEGER PRIMARY KEY,
    trajectory_id TEXT NOT NULL UNIQUE,
    task_id TEXT NOT NULL,
    site TEXT,
    difficulty TEXT,
    agent TEXT NOT NULL,
    trial INTEGER NOT NULL,
    n_steps INTEGER NOT NULL,
    error TEXT,
    termination TEXT,
    added_at REAL NOT NULL,
    -- What the viewer searches (intent) and shows (answer) without opening each folder.
    intent TEXT,
    answer TEXT
);
CREATE INDEX IF NOT EXISTS trajectories_task ON trajectories(task_id, trial);
CREATE TABLE IF NOT EXISTS score_sets (
    id INTEGER PRIMARY KEY,
    traj INTEGER NOT NULL REFERENCES trajectories(id),
    evaluator TEXT NOT NULL,
    value REAL,
    reason TEXT,
    error INTEGER NOT NULL DEFAULT 0,
    has_constraints INTEGER NOT NULL DEFAULT 0,
    -- Per-step values as a JSON array (null = step unscored): one Score is one row, and
    -- SQLite's json_each() aggregates over steps without a row per step.
    steps TEXT,
    -- Sum and count of the scored step values, kept at write time so means over millions of
    -- step scores are one pass over score rows.
    step_sum REAL,
    step_count INTEGER,
    body TEXT,
    added_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS score_sets_traj ON score_sets(traj, evaluator);
"""

# Curation's table (store.decisions), created by the curation that first writes to it.
DECISIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS curation_decisions (
    trajectory_id TEXT NOT NULL,
    dataset TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (trajectory_id, dataset)
);
"""


class IndexTooOld(InputError):
    """An index older than this webtraj reads: a writer upgrades it."""


class IndexTooNew(InputError):
    """An index written by a newer webtraj than this one."""


class IndexUnusable(InputError):
    """An index SQLite cannot open or read (damaged, not a database, locked), named by its
    file, with what to do about it."""

    @classmethod
    def of(cls, path: Path, exc: sqlite3.DatabaseError) -> IndexUnusable:
        if isinstance(exc, sqlite3.OperationalError):  # locked, unreadable, disk full
            return cls(f"the run's index cannot be used ({exc})", file=path)
        return cls(f"the run's index is damaged or not a SQLite file ({exc}); move it aside "
                   f"and `webtraj runs upgrade {path.parent}` rebuilds it from the trajectory "
                   f"folders (then `webtraj eval --run {path.parent}` scores them again)",
                   file=path)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def version(conn: sqlite3.Connection) -> int:
    """The index's version (see the module's docstring)."""
    stamped = conn.execute("PRAGMA user_version").fetchone()[0]
    if stamped:
        return stamped
    cols = _columns(conn, "score_sets")
    # No score table yet: an index being created, written at the current layout.
    return 1 if not cols or "steps" in cols else 0


def check_readable(conn: sqlite3.Connection, path: str | Path) -> None:
    """Raise IndexTooOld / IndexTooNew (naming the index and what to do) unless a reader of
    this webtraj can read the index."""
    found = version(conn)
    if found < READABLE_FROM:
        run = shlex.quote(str(Path(path).parent))
        raise IndexTooOld(
            f"the run's index is version {found}, older than this webtraj reads (versions "
            f"{READABLE_FROM} to {CURRENT}); upgrade it with `{UPGRADE_COMMAND} {run}` "
            "(it keeps every trajectory and score)", file=path)
    if found > CURRENT:
        raise IndexTooNew(_too_new(found), file=path)


def _too_new(found: int) -> str:
    return (f"the run's index is version {found}, written by a newer webtraj (this one "
            f"reads versions {READABLE_FROM} to {CURRENT}); read it with that version")


def migrate(conn: sqlite3.Connection, path: str | Path,
            load: Callable[..., Score]) -> int:
    """Bring the index to `CURRENT` (or rebuild summary tables that a write bypassed);
    `load(*row)` turns a score_sets row (evaluator, value, reason, error, steps, body) into
    a Score. Returns the version found. Run by every writer when it opens the index."""
    conn.executescript(SCHEMA)
    found = version(conn)
    if found > CURRENT:
        raise IndexTooNew(_too_new(found), file=path)
    if found < 1:
        _transaction(conn, lambda: version(conn) < 1 and _pack_step_scores(conn))
    _add_text_columns(conn)
    _summary_tables(conn, load)
    return found


def _transaction(conn: sqlite3.Connection, body: Callable[[], object]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        body()
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _pack_step_scores(conn: sqlite3.Connection) -> None:
    """0 -> 1: each score's `step_scores` rows become its `steps` array (unscored steps kept
    as null) with the sum and count of its scored values; bodies become JSON text."""
    for col, kind in (("steps", "TEXT"), ("step_sum", "REAL"), ("step_count", "INTEGER")):
        conn.execute(f"ALTER TABLE score_sets ADD COLUMN {col} {kind}")
    conn.execute("UPDATE score_sets SET body = CAST(body AS TEXT) WHERE typeof(body) = 'blob'")
    if "score_set" not in _columns(conn, "step_scores"):
        return
    # Packed in Python, as RunIndex.add_scores packs them: SQLite's JSON functions print
    # a REAL with 15 digits, which would change the stored values.
    packed: dict[int, list[float | None]] = {}
    for sid, step, value in conn.execute(
            "SELECT score_set, step, value FROM step_scores ORDER BY score_set, step"):
        values = packed.setdefault(sid, [])
        values.extend([None] * (step - len(values)))
        values.append(value)
    updates = []
    for sid, values in packed.items():
        scored = [v for v in values if v is not None]
        updates.append((orjson.dumps(values).decode(), sum(scored), len(scored), sid))
    conn.executemany("UPDATE score_sets SET steps = ?, step_sum = ?, step_count = ? "
                     "WHERE id = ?", updates)
    conn.execute("DROP TABLE step_scores")


def _add_text_columns(conn: sqlite3.Connection) -> None:
    """Version 1 in place: the viewer's `intent` and `answer` (empty for older rows)."""
    cols = _columns(conn, "trajectories")
    for col in ("intent", "answer"):
        if col not in cols:
            conn.execute(f"ALTER TABLE trajectories ADD COLUMN {col} TEXT")


def _summary_tables(conn: sqlite3.Connection, load: Callable[..., Score]) -> None:
    """1 -> 2: build the summary tables and the search index from what is stored; at 2,
    rebuild summary tables that a write bypassed (see store.summary_tables)."""
    conn.executescript(summary_tables.SCHEMA)
    search.create(conn)
    if summary_tables.current(conn):
        return

    def upgrade() -> None:
        if summary_tables.current(conn):  # another writer may have done it meanwhile
            return
        summary_tables.rebuild(conn, load)
        if conn.execute("PRAGMA user_version").fetchone()[0] < CURRENT:
            search.rebuild(conn)
            conn.execute(f"PRAGMA user_version = {CURRENT}")

    _transaction(conn, upgrade)
