"""Per-run aggregates: the headline metrics per evaluator family (`report.metrics`), per
evaluator mean score, SR and CSR with scored/unscored/error counts, model usage, and one row
per trajectory. An episode that ended in an error counts as an error of every evaluator,
never as scored, whatever score an older version stored for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, field_serializer

from webtraj.llm.usage import ModelUsage, PriceTable
from webtraj.report.metrics import RunMetrics, run_metrics
from webtraj.report.usage import judge_usage, run_usage, trajectory_usage
from webtraj.store.queries import IndexReader, ScoreCounts
from webtraj.store.rows import TrajectoryRow
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


# The fields of a trajectory row in a run's summary (`runs show --json`), in this order: the
# projection of `TrajectoryRow` its readers rely on.
SUMMARY_ROW_FIELDS = ("trajectory_id", "task_id", "site", "difficulty", "agent", "trial",
                      "n_steps", "error", "scores", "usage", "judge_usage", "wall_s")


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
    trajectories: list[TrajectoryRow]
    corrupt: list[CorruptEntry]

    @field_serializer("trajectories")
    def _summary_rows(self, rows: list[TrajectoryRow], info: Any) -> list[dict[str, Any]]:
        """Each row as `runs show --json` has always written it: SUMMARY_ROW_FIELDS."""
        return [row.model_dump(mode=info.mode, include=SUMMARY_ROW_FIELDS) for row in rows]


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
        trajectories = index.trajectory_rows(scores=True)
    rows = []
    for row in trajectories:
        if row.trajectory_id in bad_ids:
            continue
        usage, wall = per_traj.get(row.trajectory_id, (None, None))
        rows.append(row.model_copy(update={
            "usage": usage, "wall_s": wall, "judge_usage": judges.get(row.trajectory_id, {})}))
    # Listed in the order the trajectories first name them (as `runs show --json` always has).
    order = {ev: i for i, ev in enumerate(dict.fromkeys(
        ev for row in trajectories for ev in row.scores))}
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
    mean = counts.mean
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
