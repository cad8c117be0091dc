"""Per-trajectory outcomes of a run (CSR, SR, task score) as trajectory rows, and their
aggregates by group."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

from webtraj.evaluate.trajectory_scoring import task_score
from webtraj.report.metrics import csr_evaluator
from webtraj.store.queries import IndexReader
from webtraj.store.rows import TrajectoryRow
from webtraj.store.run_store import RunStore


class Aggregate(BaseModel):
    group: tuple[str, ...]
    n: int = 0
    errors: int = 0
    scored: int = 0
    sr: float | None = None
    csr: float | None = None
    task_score: float | None = None


def outcomes(store: RunStore) -> list[TrajectoryRow]:
    """One row per trajectory with its current scores (`IndexReader.trajectory_rows`), its
    `csr`: the value of the run's headline evaluator (`report.metrics.csr_evaluator` over
    the run's evaluators, as the viewer and every table read it), None for a trajectory it
    did not score, and its `task_score` (WebArena's rule over every evaluator)."""
    with IndexReader.open(store.root) as index:
        rows = index.trajectory_rows(scores=True)
    headline = csr_evaluator(sorted({ev for row in rows for ev in row.scores}))
    return [row.model_copy(update={
        "csr": row.scores.get(headline) if headline else None,
        "csr_evaluator": headline if headline in row.scores else None,
        "task_score": task_score(list(row.scores.values()))}) for row in rows]


def aggregate(items: Iterable[TrajectoryRow], keys: tuple[str, ...]) -> list[Aggregate]:
    """Macro averages per group (each trajectory counts once), plus an 'all' row."""
    groups: dict[tuple[str, ...], list[TrajectoryRow]] = defaultdict(list)
    items = list(items)
    for o in items:
        groups[tuple(str(getattr(o, k) or "-") for k in keys)].append(o)
    rows = [_agg(g, groups[g]) for g in sorted(groups, key=_order)]
    if len(groups) > 1:
        rows.append(_agg(("all",) + ("",) * (len(keys) - 1), items))
    return rows


_DIFFICULTY_ORDER = {"easy": "0", "medium": "1", "hard": "2"}


def _order(group: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_DIFFICULTY_ORDER.get(g, g) for g in group)


def _agg(group: tuple[str, ...], items: list[TrajectoryRow]) -> Aggregate:
    """Episodes that ended in an error (endpoint down, crash, timeout) are counted apart and
    left out of SR/CSR: they say nothing about the agent."""
    ok = [o for o in items if not o.error]
    csrs = [o.csr for o in ok if o.csr is not None]
    tasks = [o.task_score for o in ok if o.task_score is not None]
    return Aggregate(
        group=group, n=len(items), errors=sum(1 for o in items if o.error), scored=len(csrs),
        sr=sum(1 for c in csrs if c >= 1.0) / len(csrs) if csrs else None,
        csr=sum(csrs) / len(csrs) if csrs else None,
        task_score=sum(tasks) / len(tasks) if tasks else None)
