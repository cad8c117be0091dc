"""Per-run aggregates: the headline metrics per evaluator family (`report.metrics`), per
evaluator mean score, SR and CSR with scored/unscored/error counts, model usage, and one row
per trajectory. An episode that ended in an error counts as an error of every evaluator,
never as scored, whatever score an older version stored for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from webtraj.llm.usage import ModelUsage, PriceTable
from webtraj.report.metrics import RunMetrics, run_metrics
from webtraj.report.usage import judge_usage, run_usage, trajectory_usage
from webtraj.store.queries import IndexReader, ScoreCounts
from webtraj.store.run_store import RunStore


class EvaluatorSummary(BaseModel):
    evaluator: str
    scored: int = 0
    unscored: int = 0
    errors: int = 0
    mean: float | None = None
    sr: float | None = None
    # Macro-averaged CSR: set for constraint evaluators (whose value is a CSR).
    csr: float | None = None


class TrajectorySummary(BaseModel):
    trajectory_id: str
    task_id: str
    site: str | None
    difficulty: str | None
    agent: str
    trial: int
    n_steps: int
    error: str | None
    scores: dict[str, float | None]
    # The agent's model usage in this episode, each judge's on it, and the episode's wall time.
    usage: ModelUsage | None = None
    judge_usage: dict[str, ModelUsage] = {}
    wall_s: float | None = None


class CorruptEntry(BaseModel):
    trajectory_id: str
    file: str | None
    field: str | None
    message: str


class RunSummary(BaseModel):
    path: str
    info: dict[str, Any]
    n_trajectories: int
    episode_errors: int = 0
    metrics: RunMetrics | None = None
    evaluators: dict[str, EvaluatorSummary]
    usage: dict[str, Any] = {}
    trajectories: list[TrajectorySummary]
    corrupt: list[CorruptEntry]


def summarize(store: RunStore, *, verify: bool = True,
              prices: PriceTable | None = None) -> RunSummary:
    """Aggregate a run. With `verify`, every trajectory file is read so that a corrupt one is
    reported (and left out) instead of silently listed, and each row gets its usage."""
    corrupt = [_corrupt(c.trajectory_id, c.error) for c in store.corrupt]
    bad_ids = {c.trajectory_id for c in corrupt}
    per_traj: dict[str, tuple[ModelUsage | None, float | None]] = {}
    if verify:
        for tid, exc, usage in _read_all(store):
            if exc is None:
                per_traj[tid] = usage
            elif tid not in bad_ids:
                corrupt.append(_corrupt(tid, exc))
                bad_ids.add(tid)
    with IndexReader.open(store.root) as index:
        metrics = run_metrics(index)
        judges = judge_usage(index)
        counts = index.evaluator_counts()
        latest = index.current_values()
        trajectories = index.trajectory_rows()
    rows = []
    for row in trajectories:
        if row.trajectory_id in bad_ids:
            continue
        per = latest.get(row.rowid, {})
        usage, wall = per_traj.get(row.trajectory_id, (None, None))
        rows.append(TrajectorySummary(
            trajectory_id=row.trajectory_id, task_id=row.task_id, site=row.site,
            difficulty=row.difficulty, agent=row.agent, trial=row.trial, n_steps=row.n_steps,
            error=row.error, usage=usage, wall_s=wall,
            judge_usage=judges.get(row.trajectory_id, {}),
            scores={ev: None if row.error else v.value for ev, v in per.items()}))
    # Listed in the order the trajectories first name them (as `runs show --json` always has).
    order = {ev: i for i, ev in enumerate(dict.fromkeys(
        ev for _, per in sorted(latest.items()) for ev in per))}
    evaluators = {ev: _evaluator_summary(ev, counts[ev])
                  for ev in sorted(counts, key=lambda ev: order.get(ev, len(order)))}
    return RunSummary(path=str(store.root), info=store.info.model_dump(mode="json"),
                      n_trajectories=len(rows), episode_errors=sum(1 for r in rows if r.error),
                      metrics=metrics, evaluators=evaluators,
                      usage=run_usage(store.info).summary(prices), trajectories=rows,
                      corrupt=corrupt)


def _evaluator_summary(ev: str, counts: ScoreCounts) -> EvaluatorSummary:
    """An evaluator's row from its counts (`IndexReader.evaluator_counts`, the one place
    they are counted)."""
    mean = counts.total / counts.scored if counts.scored else None
    return EvaluatorSummary(
        evaluator=ev, scored=counts.scored, unscored=counts.unscored, errors=counts.errors,
        mean=mean, sr=counts.success / counts.scored if counts.scored else None,
        csr=mean if counts.with_constraints else None)


def _read_all(store: RunStore) -> Iterator[tuple[str, Exception | None,
                                                 tuple[ModelUsage | None, float | None]]]:
    from webtraj.model.errors import InputError

    for row in store.rows():
        try:
            traj = store.load_trajectory(row.trajectory_id)
        except InputError as exc:
            yield row.trajectory_id, exc, (None, None)
            continue
        wall = (traj.finished_at - traj.started_at
                if traj.finished_at is not None and traj.started_at is not None else None)
        yield row.trajectory_id, None, (trajectory_usage(traj.usage), wall)


def _corrupt(tid: str, exc: Exception) -> CorruptEntry:
    return CorruptEntry(trajectory_id=tid, file=getattr(exc, "file", None),
                        field=getattr(exc, "field", None),
                        message=getattr(exc, "message", str(exc)))
