"""Storing an `Eval` result as a run: one trajectory per case (input in the task metadata,
output as the answer) and one `Score` per scorer; a skipped scorer is stored as unscored."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from webtraj.model.run import RunInfo
from webtraj.model.score import Score
from webtraj.model.task import Task
from webtraj.model.trajectory import Termination, Trajectory


def _json(value: Any) -> Any:
    """A JSON-safe copy (unknown objects become their text)."""
    return orjson.loads(orjson.dumps(value, default=str))


def store_eval(root: str | Path, result: Any, *, scorers: Sequence[str],
               group_by: Sequence[str] = ()) -> Path:
    from webtraj.store import RunStore

    info = RunInfo(name=result.name, command="Eval",
                   config={"kind": "eval", "scorers": list(scorers),
                           "group_by": list(group_by)})
    summary = {k: v.model_dump() for k, v in result.summary.items()}
    grouped = {key: {g: {n: s.model_dump() for n, s in ss.items()}
                     for g, ss in result.grouped(key).items()} for key in group_by}
    with RunStore.open_or_create(root, info) as store:
        pairs: list[tuple[str, Score]] = []
        for case in result.cases:
            meta = _json(case.metadata)
            task = Task(task_id=case.id, intent=str(_json(case.input))[:2000],
                        site=str(meta.get("website")) if meta.get("website") else None,
                        metadata={"input": _json(case.input), "expected": _json(case.expected),
                                  **{f"meta_{k}": v for k, v in meta.items()}})
            traj = Trajectory(
                trajectory_id=Trajectory.make_id(case.id, result.name, 0), task=task,
                agent=result.name, answer=orjson.dumps(_json(case.output)).decode(),
                termination=Termination.ERROR if case.error else Termination.IMPORTED,
                error=case.error, metadata={"duration_s": case.duration_s})
            store.add_trajectory(traj, replace=True)
            for name, value in case.scores.items():
                d = case.score_details.get(name, {})
                details = _json({k: v for k, v in d.items() if k not in ("reason", "error")})
                if value is None:
                    reason = d.get("reason") or "scorer returned None (skipped)"
                    s = Score.unscored(name, str(reason), error=bool(d.get("error")),
                                       details=details)
                else:
                    s = Score(evaluator=name, value=value, details=details)
                pairs.append((traj.trajectory_id, s))
        store.add_scores(pairs)
        store.update_info(results={**store.info.results, "summary": _json(summary),
                                   "grouped": _json(grouped)})
    return Path(root)
