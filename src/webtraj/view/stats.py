"""A run's summary tables (totals, site x difficulty, by constraint, CSR curve, judge
agreement), cached per run until its index changes: a finished run is computed once, a run
being written at most every REFRESH_S seconds."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from pydantic import BaseModel

from webtraj.report import queries as q
from webtraj.report.metrics import RunMetrics, run_metrics
from webtraj.store.run_store import INDEX_DB


class RunStats(BaseModel):
    evaluators: list[str]
    csr_evaluator: str | None
    total: q.Cell
    cells: list[q.Cell]
    constraints: list[q.ConstraintRow]
    curve: list[tuple[int, float, int]]
    agreement: list[q.Agreement]
    constraint_agreement: list[q.ConstraintAgreement]
    metrics: RunMetrics


# While a run is being written its index changes all the time: its tables are recomputed at
# most this often (a page shows them at most this many seconds old).
REFRESH_S = 5.0
_cache: dict[Path, tuple[tuple, float, RunStats]] = {}


def _stamp(root: Path) -> tuple:
    """What changes whenever SQLite commits to the index (main file or its WAL)."""
    out = []
    for name in (INDEX_DB, INDEX_DB + "-wal"):
        try:
            st = (root / name).stat()
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


def run_stats(root: Path, conn: sqlite3.Connection) -> RunStats:
    stamp = _stamp(root)
    hit = _cache.get(root)
    if hit is not None and (hit[0] == stamp or time.monotonic() - hit[1] < REFRESH_S):
        return hit[2]
    names = q.evaluators(conn)
    ev = q.csr_evaluator(names)
    cells = q.by_site_difficulty(conn, ev)
    stats = RunStats(evaluators=names, csr_evaluator=ev, total=q.total_of(cells),
                     cells=cells, constraints=q.by_constraint(conn, ev),
                     curve=q.step_curve(conn, ev), agreement=q.judge_agreement(conn, names),
                     constraint_agreement=q.constraint_agreement(conn, names),
                     metrics=run_metrics(conn))
    _cache[root] = (stamp, time.monotonic(), stats)
    return stats


def csr_evaluator(root: Path, conn: sqlite3.Connection) -> str | None:
    return run_stats(root, conn).csr_evaluator
