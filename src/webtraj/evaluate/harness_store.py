"""An `Eval` case as a trajectory (input and expected answer in the task metadata, output as
the answer), and an `Eval` result stored as a run of the current run record: the scorers and
grouping keys, the summaries and every case's scores (a skipped scorer stored as unscored)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from webtraj.evaluate.case_scorers import META_PREFIX
from webtraj.model.run import RunInfo
from webtraj.model.score import Score
from webtraj.model.task import Task
from webtraj.model.trajectory import Termination, Trajectory

if TYPE_CHECKING:
    from webtraj.evaluate.harness import EvalResult


def _json(value: Any) -> Any:
    """A JSON-safe copy (unknown objects become their text)."""
    return orjson.loads(orjson.dumps(value, default=str))


def case_trajectory(eval_name: str, case_id: str, input: Any, expected: Any,
                    metadata: Mapping[str, Any], output: Any, *, error: str | None,
                    duration_s: float) -> Trajectory:
    meta = _json(dict(metadata))
    task = Task(task_id=case_id, intent=str(_json(input))[:2000],
                site=str(meta.get("website")) if meta.get("website") else None,
                metadata={"input": _json(input), "expected": _json(expected),
                          **{f"{META_PREFIX}{k}": v for k, v in meta.items()}})
    return Trajectory(
        trajectory_id=Trajectory.make_id(case_id, eval_name, 0), task=task,
        agent=eval_name, answer=orjson.dumps(_json(output)).decode(),
        termination=Termination.ERROR if error else Termination.IMPORTED,
        error=error, metadata={"duration_s": duration_s})


def store_eval(root: str | Path, result: EvalResult,
               cases: Sequence[tuple[Trajectory, Sequence[Score]]], *,
               scorers: Sequence[str], group_by: Sequence[str] = ()) -> Path:
    from webtraj.store import RunStore

    eval_info = {"kind": "eval", "scorers": list(scorers), "group_by": list(group_by)}
    info = RunInfo(name=result.name, command="Eval", results=eval_info)
    summary = {k: v.model_dump() for k, v in result.summary.items()}
    grouped = {key: {g: {n: s.model_dump() for n, s in ss.items()}
                     for g, ss in result.grouped(key).items()} for key in group_by}
    with RunStore.open_or_create(root, info) as store:
        pairs: list[tuple[str, Score]] = []
        for traj, scores in cases:
            store.add_trajectory(traj, replace=True)
            pairs.extend((traj.trajectory_id, s) for s in scores)
        store.add_scores(pairs)
        store.update_info(results={**store.info.results, **eval_info,
                                   "summary": _json(summary), "grouped": _json(grouped)})
    return Path(root)
