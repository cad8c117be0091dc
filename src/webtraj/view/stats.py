"""A run's summary tables (totals, site x difficulty, by constraint, CSR curve, judge
agreement), cached per run until its index changes: a finished run is computed once, a run
being written at most every REFRESH_S seconds."""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from webtraj.report.metrics import RunMetrics, csr_evaluator, run_metrics
from webtraj.store.queries import (
    Agreement,
    Cell,
    ConstraintAgreement,
    ConstraintRow,
    IndexReader,
    total_of,
)
from webtraj.store.run_store import INDEX_DB


class RunStats(BaseModel):
    evaluators: list[str]
    csr_evaluator: str | None
    total: Cell
    cells: list[Cell]
    constraints: list[ConstraintRow]
    curve: list[tuple[int, float, int]]
    agreement: list[Agreement]
    constraint_agreement: list[ConstraintAgreement]
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


def run_stats(root: Path, index: IndexReader) -> RunStats:
    stamp = _stamp(root)
    hit = _cache.get(root)
    if hit is not None and (hit[0] == stamp or time.monotonic() - hit[1] < REFRESH_S):
        return hit[2]
    names = index.evaluators()
    ev = csr_evaluator(names)
    cells = index.by_site_difficulty(ev)
    stats = RunStats(evaluators=names, csr_evaluator=ev, total=total_of(cells),
                     cells=cells, constraints=index.by_constraint(ev),
                     curve=index.step_curve(ev), agreement=index.judge_agreement(names),
                     constraint_agreement=index.constraint_agreement(names),
                     metrics=run_metrics(index))
    _cache[root] = (stamp, time.monotonic(), stats)
    return stats
