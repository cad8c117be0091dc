"""`Eval(name, data, task, scores)`, the Multimodal-Mind2Web cookbook's evaluation API, as a
front of the evaluator framework.

Each case is `{"input", "expected", "metadata"}`. The task turns an input into an output; the
case becomes a trajectory (`case_trajectory`) and every scorer is an evaluator run on it by
`trajectory_scoring.run_evaluator`, as `webtraj eval` runs them: an evaluator, a registry
config or name (`"action_correct"`), or a plain function called with the keyword arguments it
names among `input, output, expected, metadata` (all four if it takes `**kwargs`) returning a
number in [0, 1], a named score (`NamedScore`, a dict with `name` and `score`, or a `Score`)
or None (skipped; see `case_scorers`). Cases run concurrently. The cases and their scores are
always stored as a run (in `store=DIR`, else in a temporary folder removed at the end), and
the summaries, overall and by every metadata key, are read back from that run's index
(`IndexReader.evaluator_counts_by`): the numbers `webtraj runs show` and the report print
for the run, counted in one place."""

from __future__ import annotations

import asyncio
import inspect
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from pydantic import Field

from webtraj.evaluate.case_scorers import (
    CASE_ARGS,
    META_PREFIX,
    FunctionScorer,
    NamedScore,
    action_correct,
    element_match,
    operation_match,
)
from webtraj.evaluate.protocol import EvalEnv, Evaluator
from webtraj.evaluate.registry import create
from webtraj.evaluate.trajectory_scoring import run_evaluator
from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError
from webtraj.model.run import RunInfo
from webtraj.model.score import Score
from webtraj.model.task import Task
from webtraj.model.trajectory import Termination, Trajectory
from webtraj.store import RunStore
from webtraj.store.queries import IndexReader, ScoreCounts

__all__ = ["Eval", "EvalCase", "EvalResult", "CaseResult", "NamedScore", "ScoreSummary",
           "action_correct", "element_match", "operation_match"]

Scorer = Callable[..., Any] | Evaluator | Mapping[str, Any] | str


class EvalCase(FrozenModel):
    input: Any = None
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class CaseResult(FrozenModel):
    id: str
    input: Any = None
    output: Any = None
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # Scorer name -> value; None means the scorer skipped the case or could not run.
    scores: dict[str, float | None] = Field(default_factory=dict)
    score_details: dict[str, dict[str, Any]] = Field(default_factory=dict)
    error: str | None = None
    duration_s: float = 0.0


class ScoreSummary(FrozenModel):
    """One scorer over a set of cases, as the run's index counts it (`ScoreCounts`, what
    `runs show` prints): `mean` over the `scored` cases; `skipped`, the cases without a
    value, are the `unscored` ones (the scorer could not decide) and the `errors` (the task
    or the scorer failed)."""

    mean: float | None
    scored: int
    skipped: int
    unscored: int = 0
    errors: int = 0

    @classmethod
    def of(cls, counts: ScoreCounts) -> ScoreSummary:
        return cls(mean=counts.mean, scored=counts.scored,
                   skipped=counts.unscored + counts.errors, unscored=counts.unscored,
                   errors=counts.errors)


class EvalResult(FrozenModel):
    name: str
    cases: list[CaseResult]
    summary: dict[str, ScoreSummary]
    run_dir: str | None = None
    # Metadata key -> its value as text ("" for a case without it) -> the summaries of those
    # cases: for every key the cases' metadata has, read from the run's index.
    groups: dict[str, dict[str, dict[str, ScoreSummary]]] = Field(default_factory=dict)

    def grouped(self, key: str) -> dict[str, dict[str, ScoreSummary]]:
        """Summaries per value of metadata `key` (cases without it go under "")."""
        if key in self.groups:
            return self.groups[key]
        if any(key in c.metadata for c in self.cases):
            raise KeyError(f"this result has no summaries by {key!r} (a result made without "
                           "its `groups`); run the Eval again to have them")
        return {"": self.summary} if self.cases else {}


def _as_case(item: Any, i: int) -> EvalCase:
    if isinstance(item, EvalCase):
        case = item
    elif isinstance(item, Mapping):
        case = EvalCase(input=item.get("input"), expected=item.get("expected"),
                        metadata=dict(item.get("metadata") or {}), id=item.get("id"))
    else:
        case = EvalCase(input=getattr(item, "input", item),
                        expected=getattr(item, "expected", None),
                        metadata=dict(getattr(item, "metadata", None) or {}))
    return case if case.id else case.model_copy(update={"id": f"case-{i:05d}"})


def as_evaluator(scorer: Any, env: EvalEnv | None = None) -> Evaluator:
    """An `Eval` scorer as an evaluator: an evaluator as is, a registry config or name
    built by the registry, a function wrapped."""
    if isinstance(scorer, str):
        return create({"evaluator": scorer}, env)
    if isinstance(scorer, Mapping):
        return create(scorer, env)
    if inspect.iscoroutinefunction(getattr(scorer, "evaluate", None)):
        return scorer
    if callable(scorer):
        return FunctionScorer(scorer)
    raise TypeError(f"scorer {scorer!r} is not a function, an evaluator or an evaluator config")



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


Summaries = dict[str, ScoreSummary]


def _by_group(index: IndexReader, cases: Sequence[tuple[str, CaseResult]],
              labels: Mapping[str, str]) -> dict[str, Summaries]:
    """Group -> scorer -> its summary over the cases (trajectory id, case) that `labels` puts
    in the group, counted by the index; scorers in the order the group's cases name them."""
    counts = index.evaluator_counts_by(labels)
    names: dict[str, dict[str, None]] = {}
    for tid, case in cases:
        names.setdefault(labels[tid], {}).update(dict.fromkeys(case.scores))
    return {g: {n: ScoreSummary.of(counts[g][n]) for n in ns} for g, ns in names.items()}


def read_summaries(index: IndexReader, cases: Sequence[tuple[str, CaseResult]]
                   ) -> tuple[Summaries, dict[str, dict[str, Summaries]]]:
    """The summary of the stored cases (trajectory id, case) and their summaries by the value
    of every metadata key they have, from the run's index (other trajectories of the run
    left out)."""
    summary = _by_group(index, cases, {tid: "" for tid, _ in cases}).get("", {})
    keys = dict.fromkeys(k for _, case in cases for k in case.metadata)
    groups = {key: _by_group(index, cases, {tid: str(case.metadata.get(key, ""))
                                            for tid, case in cases}) for key in keys}
    return summary, groups


def store_eval(root: str | Path, name: str,
               cases: Sequence[tuple[CaseResult, Trajectory, Sequence[Score]]], *,
               scorers: Sequence[str], group_by: Sequence[str] = ()) -> EvalResult:
    """Store the cases and their scores as a run at `root` (one trajectory per case) and
    read the result's summaries back from its index; the run record's `results` keep the
    summary and the groupings by `group_by`."""
    eval_info = {"kind": "eval", "scorers": list(scorers), "group_by": list(group_by)}
    info = RunInfo(name=name, command="Eval", results=eval_info)
    with RunStore.open_or_create(root, info) as store:
        pairs: list[tuple[str, Score]] = []
        for _, traj, scores in cases:
            store.add_trajectory(traj, replace=True)
            pairs.extend((traj.trajectory_id, s) for s in scores)
        store.add_scores(pairs)
        with IndexReader.open(store.root) as index:
            summary, groups = read_summaries(
                index, [(traj.trajectory_id, case) for case, traj, _ in cases])
        result = EvalResult(name=name, cases=[case for case, _, _ in cases], summary=summary,
                            groups=groups)
        grouped = {key: {g: {n: s.model_dump() for n, s in ss.items()}
                         for g, ss in result.grouped(key).items()} for key in group_by}
        store.update_info(results={
            **store.info.results, **eval_info,
            "summary": _json({k: v.model_dump() for k, v in summary.items()}),
            "grouped": _json(grouped)})
    return result


@contextmanager
def _run_folder(store: Path | None) -> Iterator[Path]:
    """The user's run folder, or a temporary one removed afterwards."""
    if store is not None:
        yield store
        return
    with tempfile.TemporaryDirectory(prefix="webtraj-eval-") as tmp:
        yield Path(tmp) / "run"


def _distinct_ids(cases: Sequence[EvalCase]) -> None:
    """Each case is stored as its own trajectory, named by its id: two cases with one id
    would be one trajectory (the later replacing the earlier) and counted once."""
    first: dict[str, int] = {}
    for i, case in enumerate(cases):
        j = first.setdefault(case.id or "", i)
        if j != i:
            raise InputError(f"case {i} has the id {case.id!r} of case {j}; give each case its "
                             "own id", record=i, field="id")


class Eval:
    """Run `task` on every case and score it. `await ev.arun()` or `ev.run()`."""

    def __init__(self, name: str, data: Iterable[Any] | Callable[[], Iterable[Any]],
                 task: Callable[[Any], Any] | Callable[[Any], Awaitable[Any]],
                 scores: Sequence[Scorer], *, concurrency: int = 8,
                 store: str | Path | None = None, group_by: Sequence[str] = (),
                 env: EvalEnv | None = None) -> None:
        self.name = name
        self.data = data
        self.task = task
        self.scores = list(scores)
        self.concurrency = max(1, concurrency)
        self.store = Path(store) if store is not None else None
        self.group_by = tuple(group_by)
        self.env = env or EvalEnv()

    async def _one(self, case: EvalCase, evaluators: Sequence[Evaluator]
                   ) -> tuple[CaseResult, Trajectory, list[Score]]:
        t0 = time.perf_counter()
        output: Any = None
        error: str | None = None
        try:
            if inspect.iscoroutinefunction(self.task):
                output = await self.task(case.input)
            else:
                output = await asyncio.to_thread(self.task, case.input)
                if inspect.isawaitable(output):
                    output = await output
        except Exception as exc:  # one failing case must not stop the evaluation
            error = f"{type(exc).__name__}: {exc}"
        duration = time.perf_counter() - t0
        traj = case_trajectory(self.name, case.id or "", case.input, case.expected,
                               case.metadata, output, error=error, duration_s=duration)
        token = CASE_ARGS.set({"input": case.input, "output": output,
                               "expected": case.expected, "metadata": case.metadata})
        try:
            scores: list[Score] = []
            for evaluator in evaluators:
                scores.extend(await run_evaluator(evaluator, traj, None))
        finally:
            CASE_ARGS.reset(token)
        values: dict[str, float | None] = {}
        details: dict[str, dict[str, Any]] = {}
        for sc in scores:
            values[sc.evaluator] = sc.value
            d: dict[str, Any] = dict(sc.details)
            if sc.reason is not None:
                d["reason"] = sc.reason
            if sc.error:
                d["error"] = True
            details[sc.evaluator] = d
        result = CaseResult(id=case.id or "", input=case.input, output=output,
                            expected=case.expected, metadata=case.metadata, scores=values,
                            score_details=details, error=error, duration_s=duration)
        return result, traj, scores

    async def arun(self) -> EvalResult:
        data = self.data() if callable(self.data) else self.data
        cases = [_as_case(item, i) for i, item in enumerate(data)]
        _distinct_ids(cases)
        sem = asyncio.Semaphore(self.concurrency)
        evaluators = [as_evaluator(s, self.env) for s in self.scores]

        async def guarded(c: EvalCase) -> tuple[CaseResult, Trajectory, list[Score]]:
            async with sem:
                return await self._one(c, evaluators)

        done = list(await asyncio.gather(*(guarded(c) for c in cases)))
        with _run_folder(self.store) as root:
            result = store_eval(root, self.name, done, scorers=[e.name for e in evaluators],
                                group_by=self.group_by)
        if self.store is not None:
            result = result.model_copy(update={"run_dir": str(self.store)})
        return result

    def run(self) -> EvalResult:
        return asyncio.run(self.arun())
