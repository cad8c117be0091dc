"""Scorers of `Eval` cases as evaluators of the registry.

A case is stored as a trajectory (`harness.case_trajectory`): its input and expected
answer in the task metadata, the task's output as the answer. `FunctionScorer` makes any
function of `input, output, expected, metadata` an evaluator of such trajectories; the
built-in `operation_match`, `action_correct` and `element_match` are registered under those
names, so `webtraj eval --evaluator action_correct` rescoring a stored Eval run gives the
scores `Eval` gave. Inside `Eval` a function gets the case's own Python objects; on a stored
run, their JSON form."""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from webtraj.evaluate.mind2web.step_metrics import action_matches
from webtraj.evaluate.protocol import EvalEnv, Evaluator
from webtraj.model.base import FrozenModel
from webtraj.model.score import Score
from webtraj.model.trajectory import Trajectory

ARG_NAMES = ("input", "output", "expected", "metadata")
META_PREFIX = "meta_"
# The running case's objects (set by `Eval` around its scorers).
CASE_ARGS: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "webtraj_eval_case", default=None)


class NamedScore(FrozenModel):
    name: str
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


def scorer_name(fn: Any) -> str:
    return getattr(fn, "name", None) or getattr(fn, "__name__", None) or type(fn).__name__


def case_args(trajectory: Trajectory) -> dict[str, Any]:
    """input, output, expected, metadata of a stored case (its JSON form)."""
    meta = trajectory.task.metadata
    try:
        output = orjson.loads(trajectory.answer) if trajectory.answer else None
    except orjson.JSONDecodeError:
        output = trajectory.answer
    return {"input": meta.get("input"), "output": output, "expected": meta.get("expected"),
            "metadata": {k[len(META_PREFIX):]: v for k, v in meta.items()
                         if k.startswith(META_PREFIX)}}


def _call_kwargs(fn: Callable[..., Any], available: Mapping[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return dict(available)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(available)
    return {k: v for k, v in available.items() if k in params}


def to_scores(name: str, value: Any) -> list[Score]:
    """Scores from whatever a scorer function returned: a number in [0, 1] (or a bool), a
    `NamedScore`, a dict with `name`/`score`, a `Score`, a list of those, or None (skipped)."""
    if value is None:
        return [Score.unscored(name, "scorer returned None (skipped)",
                               details={"skipped": True})]
    if isinstance(value, bool):
        return [Score(evaluator=name, value=float(value))]
    if isinstance(value, (int, float)):
        v = float(value)
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"scorer {name} returned {v}, outside [0, 1]")
        return [Score(evaluator=name, value=v)]
    if isinstance(value, Score):
        return [value]
    if isinstance(value, Mapping) and "score" in value:
        value = NamedScore(name=str(value.get("name") or name), score=value["score"],
                           metadata=dict(value.get("metadata") or {}))
    if isinstance(value, NamedScore):
        if value.score is None:
            return [Score.unscored(value.name, "scorer returned no score (skipped)",
                                   details={"skipped": True, **value.metadata})]
        return [Score(evaluator=value.name, value=value.score, details=dict(value.metadata))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in to_scores(name, v)]
    raise TypeError(f"scorer {name} returned {type(value).__name__}; expected a number, a "
                    "named score or None")


class FunctionScorer:
    """A scorer function as an evaluator (sync or async function)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.name = scorer_name(fn)

    async def evaluate(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        args = CASE_ARGS.get() or case_args(trajectory)
        value = self.fn(**_call_kwargs(self.fn, args))
        if inspect.isawaitable(value):
            value = await value
        return to_scores(self.name, value)


# --- built-in scorers (the Multimodal-Mind2Web cookbook's) -------------------------------
def _field(obj: Any, *names: str) -> Any:
    for n in names:
        if isinstance(obj, Mapping) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


def _op(obj: Any) -> str:
    return str(_field(obj, "op", "action", "operation") or "").strip().upper()


def operation_match(output: Any, expected: Any) -> float | None:
    """1 when the predicted operation type (CLICK/TYPE/SELECT) equals the expected one."""
    if not _op(expected):
        return None
    return float(_op(output) == _op(expected))


def action_correct(output: Any, expected: Any) -> float | None:
    """Operation matches and, for TYPE and SELECT, the value matches too (spaces trimmed)."""
    want = _op(expected)
    if not want:
        return None
    if _op(output) != want:
        return 0.0
    return float(action_matches(_op(output), str(_field(output, "value") or ""), want,
                                str(_field(expected, "value") or "")))


def element_match(output: Any, expected: Any) -> float | None:
    """1 when the predicted element is one of the expected elements; skipped when the case
    names no element."""
    want = _field(expected, "elements", "element")
    if want is None or want == []:
        return None
    want_set = {str(w) for w in want} if isinstance(want, (list, tuple, set)) else {str(want)}
    got = _field(output, "element")
    return float(got is not None and str(got) in want_set)


BUILTINS = (operation_match, action_correct, element_match)
for _fn in BUILTINS:
    _fn.name = _fn.__name__  # type: ignore[attr-defined]


class CaseScorerConfig(BaseModel):
    """A built-in case scorer's config: its name, no options."""

    model_config = ConfigDict(extra="forbid")
    evaluator: Literal["operation_match", "action_correct", "element_match"]


def builtin_scorer(config: CaseScorerConfig, env: EvalEnv) -> Evaluator:
    return FunctionScorer(next(fn for fn in BUILTINS if fn.__name__ == config.evaluator))
