"""The SQLite index of one run: trajectories (rebuildable from their folders) and scores
(stored only here, so writes go through transactions)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import orjson

from webtraj.model.redact import Redactor
from webtraj.model.score import STEP_CHECK_ROWS, Score, StepMatches, upgrade_legacy_score
from webtraj.model.trajectory import Trajectory
from webtraj.store import migrations, summary_tables
from webtraj.store.rows import ROW_COLS, TrajectoryRow

_BODY_EXCLUDE = {"step_values"}
_CHUNK = 10_000


def _row_data(evaluator: str, value: float | None, reason: str | None, error: int,
              steps: str | None, body: str | None) -> dict:
    data = orjson.loads(body) if body is not None else {
        "evaluator": evaluator, "value": value, "reason": reason, "error": bool(error)}
    if not isinstance(data, dict):
        raise ValueError(f"score body is {type(data).__name__}, not an object")
    if steps is not None:
        data["step_values"] = orjson.loads(steps)
    return upgrade_legacy_score(data)


def score_from_row(evaluator: str, value: float | None, reason: str | None, error: int,
                   steps: str | None, body: str | None) -> Score:
    """A Score from its score_sets columns: a plain score lives in the columns, anything
    more in the JSON body, per-step values in `steps`."""
    return Score.model_validate(_row_data(evaluator, value, reason, error, steps, body))


def score_matches_from_row(evaluator: str, value: float | None, reason: str | None,
                           error: int, steps: str | None, body: str | None
                           ) -> tuple[Score, StepMatches | None]:
    """The same score without its step checks, and the checks as validated rows
    (`StepCheckRow`) rather than one model each: what bulk curation reads. Raises ValueError
    where `score_from_row` would."""
    data = _row_data(evaluator, value, reason, error, steps, body)
    rows = data.pop("step_checks", None)
    score = Score.model_validate(data)
    if rows is not None:
        return score, STEP_CHECK_ROWS.validate_python(rows)
    return score, None


def _where(filters: dict[str, object | None], prefix: str = "") -> tuple[str, list[object]]:
    clauses, params = [], []
    for col, val in filters.items():
        if val is None:
            continue
        if isinstance(val, (list, tuple, set, frozenset)):
            vals = list(val)
            clauses.append(f"{prefix}{col} IN ({','.join('?' * len(vals))})")
            params.extend(vals)
        else:
            clauses.append(f"{prefix}{col} = ?")
            params.append(val)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def connect_read_only(path: Path) -> sqlite3.Connection:
    """The index at `path` through a read-only connection (nothing on disk changes), once
    its version is one this webtraj reads (else migrations.IndexTooOld / IndexTooNew)."""
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
    except sqlite3.DatabaseError as exc:
        raise migrations.IndexUnusable.of(path, exc) from None
    try:
        migrations.check_readable(conn, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise migrations.IndexUnusable.of(path, exc) from None
    except BaseException:
        conn.close()
        raise
    return conn


class RunIndex:
    """`redactor`: text columns (intent, answer, error, score reasons and bodies) are redacted
    as they are written, like every file of the run."""

    def __init__(self, path: str | Path, redactor: Redactor | None = None, *,
                 read_only: bool = False) -> None:
        self.path = Path(path)
        self._redactor = redactor
        # The version the index had when opened (a writer has since brought it to
        # migrations.CURRENT).
        self.found_version = migrations.CURRENT
        if read_only:
            # A reader changes nothing: no schema, no migration, no journal-mode switch.
            self.conn = connect_read_only(self.path)
            return
        try:
            self.conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise migrations.IndexUnusable.of(self.path, exc) from None
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.found_version = migrations.migrate(self.conn, self.path, score_from_row)
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            if str(path) == ":memory:":
                raise
            raise migrations.IndexUnusable.of(self.path, exc) from None
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    # --- trajectories -------------------------------------------------------------------
    def _text(self, value: str | None) -> str | None:
        return value if value is None or self._redactor is None else self._redactor.text(value)

    def upsert_trajectory(self, traj: Trajectory) -> int:
        t = traj.task
        text = self._text
        cur = self.conn.execute(
            "INSERT INTO trajectories (trajectory_id, task_id, site, difficulty, agent, trial, "
            "n_steps, error, termination, added_at, intent, answer) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(trajectory_id) DO UPDATE SET task_id=excluded.task_id, "
            "site=excluded.site, difficulty=excluded.difficulty, agent=excluded.agent, "
            "trial=excluded.trial, n_steps=excluded.n_steps, error=excluded.error, "
            "termination=excluded.termination, intent=excluded.intent, answer=excluded.answer "
            "RETURNING id",
            (traj.trajectory_id, t.task_id, t.site, t.difficulty and str(t.difficulty),
             traj.agent, traj.trial, len(traj.steps), text(traj.error),
             traj.termination and str(traj.termination), time.time(), text(t.intent),
             text(traj.answer)),
        )
        return cur.fetchone()[0]

    def trajectories_without_scores(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT trajectory_id FROM trajectories t WHERE NOT EXISTS "
            "(SELECT 1 FROM score_sets s WHERE s.traj = t.id) ORDER BY t.id")]

    def trajectory_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT trajectory_id FROM trajectories")}

    def rowid(self, trajectory_id: str) -> int | None:
        r = self.conn.execute("SELECT id FROM trajectories WHERE trajectory_id = ?",
                              (trajectory_id,)).fetchone()
        return r[0] if r else None

    def rows(self, *, site=None, difficulty=None, agent=None, task_id=None,
             has_error: bool | None = None) -> Iterator[TrajectoryRow]:
        where, params = _where({"site": site, "difficulty": difficulty, "agent": agent,
                                "task_id": task_id})
        if has_error is not None:
            where += (" AND " if where else " WHERE ") + (
                "error IS NOT NULL" if has_error else "error IS NULL")
        cur = self.conn.execute(f"SELECT {ROW_COLS} FROM trajectories{where} ORDER BY id",
                                params)
        for r in cur:
            yield TrajectoryRow.from_columns(r)

    def completed(self, *, agent: str | None = None,
                  retry_failed: bool = False) -> set[tuple[str, int]]:
        where, params = _where({"agent": agent})
        if retry_failed:
            # Episodes the infrastructure lost (crashed worker, timeout) are not done.
            where += (" AND " if where else " WHERE ") + (
                "(termination IS NULL OR termination NOT IN ('error', 'timeout'))")
        return {(r[0], r[1]) for r in self.conn.execute(
            f"SELECT task_id, trial FROM trajectories{where}", params)}

    # --- scores -------------------------------------------------------------------------
    def add_scores(self, items: Iterable[tuple[int, Score]]) -> int:
        """Insert (trajectory rowid, score) pairs in one transaction; returns how many."""
        now = time.time()
        conn = self.conn
        sql = ("INSERT INTO score_sets (traj, evaluator, value, reason, error, has_constraints, "
               "steps, step_sum, step_count, body, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)")
        conn.execute("BEGIN IMMEDIATE")
        try:
            n = 0
            chunk: list[tuple] = []
            scores: list[tuple[int, Score]] = []
            # Summary tables a write bypassed are rebuilt after this one, not patched.
            incremental = summary_tables.current(conn)

            def flush() -> None:
                # Inside this transaction nobody else inserts: the new ids follow the max.
                first = conn.execute("SELECT IFNULL(MAX(id), 0) FROM score_sets").fetchone()[0]
                conn.executemany(sql, chunk)
                if incremental:
                    summary_tables.record(conn, ((t, first + 1 + i, s)
                                          for i, (t, s) in enumerate(scores)))
                chunk.clear()
                scores.clear()

            for traj, score in items:
                n += 1
                steps = score.step_values
                # The columns hold a plain score; the JSON body only what they cannot.
                body = (score.model_dump_json(exclude_none=True, exclude=_BODY_EXCLUDE)
                        if score.constraints or score.step_checks or score.details
                        or score.suspected_injections or score.usage else None)
                if steps is not None:
                    scored = [v for v in steps if v is not None]
                    steps_json, s_sum, s_count = orjson.dumps(steps).decode(), sum(scored), len(
                        scored)
                else:
                    steps_json, s_sum, s_count = None, None, None
                chunk.append((traj, score.evaluator, score.value, self._text(score.reason),
                              int(score.error), int(bool(score.constraints)), steps_json,
                              s_sum, s_count, self._text(body), now))
                scores.append((traj, score))
                if len(chunk) >= _CHUNK:
                    flush()
            if chunk:
                flush()
            if incremental:
                summary_tables.mark(conn)
            else:
                summary_tables.rebuild(conn, score_from_row)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return n

    def scores(self, traj: int, *, evaluator: str | Sequence[str] | None = None,
               latest_only: bool = True) -> list[Score]:
        where, params = _where({"traj": traj, "evaluator": evaluator})
        rows = self.conn.execute(
            "SELECT id, evaluator, value, reason, error, steps, body FROM score_sets"
            f"{where} ORDER BY id", params).fetchall()
        if latest_only:
            latest: dict[str, tuple] = {}
            for r in rows:
                latest[r[1]] = r
            rows = list(latest.values())
        return [score_from_row(*row[1:]) for row in rows]

    def rowids(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT trajectory_id, id FROM trajectories"))
