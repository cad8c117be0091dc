"""Summary tables of a run's index, kept current as scores are stored (index schema 2), so a
run's tables are a few small reads however many trajectories it has:

- `current_scores`: the newest score of each (evaluator, trajectory) with its value;
- `current_constraints`: that score's final constraint judgements, one row per constraint;
- `step_totals`: per evaluator and step index, the sum and count of the current per-step
  values (a CSR-by-step curve is sum / count);
- `constraint_totals`: per evaluator and constraint name, met / not met / unknown counts of
  the current judgements.

A newer score for the same (evaluator, trajectory) replaces the older one's contribution.
Schema 2 also brings the search index (store.search).
An index written before these tables existed (schema 1) is migrated by the first writer that
opens it (store.migrations); a read-only reader sees `SCHEMA_VERSION` not reached and uses
the slower queries over every stored score (`latest_join`)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

import orjson

from webtraj.model.score import Score

# The index version (store.migrations) that brought the summary tables (1 had none).
SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS current_scores (
    evaluator TEXT NOT NULL,
    traj INTEGER NOT NULL,
    score INTEGER NOT NULL,
    value REAL,
    -- Copies of the trajectory's site, difficulty and whether it ended in an error, kept
    -- in step by the trigger below, so the site x difficulty table reads this table alone.
    site TEXT,
    difficulty TEXT,
    err INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (evaluator, traj)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS current_scores_cells
    ON current_scores(evaluator, site, difficulty, err, value);
CREATE TRIGGER IF NOT EXISTS current_scores_trajectory AFTER UPDATE OF site, difficulty, error
    ON trajectories BEGIN
    UPDATE current_scores SET site = new.site, difficulty = new.difficulty,
        err = new.error IS NOT NULL WHERE traj = new.id;
END;
-- Trajectory counts by cell, and the (few) error episodes, without reading whole rows.
CREATE INDEX IF NOT EXISTS trajectories_cells
    ON trajectories(site, difficulty, error IS NOT NULL);
CREATE INDEX IF NOT EXISTS trajectories_errors ON trajectories(id) WHERE error IS NOT NULL;
CREATE TABLE IF NOT EXISTS current_constraints (
    evaluator TEXT NOT NULL,
    traj INTEGER NOT NULL,
    name TEXT NOT NULL,
    matching INTEGER,
    PRIMARY KEY (evaluator, traj, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS step_totals (
    evaluator TEXT NOT NULL,
    step INTEGER NOT NULL,
    total REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (evaluator, step)
) WITHOUT ROWID;
-- What the tables above were last brought up to: the newest score id and the number of
-- stored scores. A write that bypassed them (a score row deleted or added by hand) shows as
-- a mismatch: readers then use the full queries and the next writer rebuilds them.
CREATE TABLE IF NOT EXISTS summary_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_score INTEGER NOT NULL,
    scores INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS constraint_totals (
    evaluator TEXT NOT NULL,
    name TEXT NOT NULL,
    met INTEGER NOT NULL,
    not_met INTEGER NOT NULL,
    unknown INTEGER NOT NULL,
    PRIMARY KEY (evaluator, name)
) WITHOUT ROWID;
"""


def version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def current(conn: sqlite3.Connection) -> bool:
    """Whether the summary tables describe exactly the stored scores."""
    if version(conn) < SCHEMA_VERSION:
        return False
    try:
        mark = conn.execute("SELECT last_score, scores FROM summary_meta").fetchone()
    except sqlite3.OperationalError:
        return False
    return mark == conn.execute("SELECT IFNULL(MAX(id), 0), COUNT(*) FROM score_sets"
                                ).fetchone()


def mark(conn: sqlite3.Connection) -> None:
    """Note that the summary tables are up to date with score_sets (inside the write)."""
    conn.execute("INSERT OR REPLACE INTO summary_meta VALUES (1, (SELECT IFNULL(MAX(id), 0) "
                 "FROM score_sets), (SELECT COUNT(*) FROM score_sets))")


def _match_code(m: bool | None) -> int | None:
    return None if m is None else int(m)


class _Delta:
    """Changes to the totals of one batch of scores, written in one statement per table."""

    def __init__(self) -> None:
        self.steps: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0])
        self.constraints: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])

    def add(self, ev: str, steps: Sequence[float | None] | None,
            constraints: Iterable[tuple[str, int | None]], sign: int) -> None:
        for i, v in enumerate(steps or ()):
            if v is not None:
                acc = self.steps[(ev, i)]
                acc[0] += sign * v
                acc[1] += sign
        for name, m in constraints:
            self.constraints[(ev, name)][2 if m is None else 1 - m] += sign

    def write(self, conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO step_totals VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET "
            "total = total + excluded.total, n = n + excluded.n",
            [(ev, i, s, n) for (ev, i), (s, n) in self.steps.items()])
        conn.executemany(
            "INSERT INTO constraint_totals VALUES (?,?,?,?,?) ON CONFLICT DO UPDATE SET "
            "met = met + excluded.met, not_met = not_met + excluded.not_met, "
            "unknown = unknown + excluded.unknown",
            [(ev, name, c[0], c[1], c[2]) for (ev, name), c in self.constraints.items()])


def record(conn: sqlite3.Connection, items: Iterable[tuple[int, int, Score]]) -> None:
    """Make (trajectory rowid, score_sets id, score) the current scores, inside the caller's
    transaction, ids ascending (the newest last)."""
    delta = _Delta()
    for traj, sid, score in items:
        ev = score.evaluator
        prev = conn.execute("SELECT c.score, s.steps FROM current_scores c JOIN score_sets s "
                            "ON s.id = c.score WHERE c.evaluator = ? AND c.traj = ?",
                            (ev, traj)).fetchone()
        if prev is not None:
            if prev[0] > sid:
                continue  # a newer score is already current
            old = conn.execute("SELECT name, matching FROM current_constraints "
                               "WHERE evaluator = ? AND traj = ?", (ev, traj)).fetchall()
            delta.add(ev, orjson.loads(prev[1]) if prev[1] else None, old, -1)
            conn.execute("DELETE FROM current_constraints WHERE evaluator = ? AND traj = ?",
                         (ev, traj))
        new = {c.name: _match_code(c.matching) for c in score.constraints}
        conn.execute("INSERT OR REPLACE INTO current_scores SELECT ?, id, ?, ?, site, "
                     "difficulty, error IS NOT NULL FROM trajectories WHERE id = ?",
                     (ev, sid, score.value, traj))
        conn.executemany("INSERT INTO current_constraints VALUES (?,?,?,?)",
                         [(ev, traj, n, m) for n, m in new.items()])
        delta.add(ev, score.step_values, new.items(), +1)
    delta.write(conn)


def rebuild(conn: sqlite3.Connection, load: Callable[..., Score]) -> None:
    """Recompute the summary tables from score_sets, inside the caller's transaction."""
    for table in ("current_scores", "current_constraints", "step_totals",
                  "constraint_totals"):
        conn.execute(f"DELETE FROM {table}")
    rows = conn.execute(
        "SELECT traj, id, evaluator, value, reason, error, steps, body FROM score_sets "
        "WHERE id IN (SELECT MAX(id) FROM score_sets GROUP BY traj, evaluator) ORDER BY id")
    record(conn, _readable(rows.fetchall(), load))
    mark(conn)


def _readable(rows: Iterable[tuple], load: Callable[..., Score]
              ) -> Iterator[tuple[int, int, Score]]:
    """Stored scores that still read; one that does not is left out of the totals (its
    trajectory page shows why), never a reason to refuse the run."""
    for r in rows:
        try:
            yield r[0], r[1], load(*r[2:])
        except ValueError:
            continue


def current_join(has_summary: bool, alias: str, kind: str = "LEFT JOIN") -> str:
    """Join each trajectory `t` to its current score of one evaluator (the `?`): from the
    summary table when the index has it (value only), else from score_sets."""
    if has_summary:
        return (f" {kind} current_scores {alias} ON {alias}.evaluator = ? "
                f"AND {alias}.traj = t.id")
    return latest_join(alias, kind)


def score_error(has_summary: bool, alias: str) -> str:
    """SQL true when the current score joined as `alias` (by `current_join`) is an evaluator
    error, false without one: the summary table keeps no such flag, so its row's score_sets
    row is read (a seek, asked only of unscored rows by the callers)."""
    if has_summary:
        return f"COALESCE((SELECT error FROM score_sets WHERE id = {alias}.score), 0)"
    return f"COALESCE({alias}.error, 0)"


def latest_join(alias: str, kind: str = "LEFT JOIN", extra: str = "") -> str:
    """Join each trajectory `t` to its newest score of one evaluator (the `?`): one index
    seek per trajectory on score_sets(traj, evaluator), whose last column is the row id."""
    return (f" {kind} score_sets {alias} ON {alias}.id = (SELECT MAX(id) FROM score_sets "
            f"WHERE traj = t.id AND evaluator = ?{extra})")
