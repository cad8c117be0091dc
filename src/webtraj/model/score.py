"""Scores: a value in [0, 1], or *unscored* with a reason. Never an error turned into a 0."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter, model_validator
from typing_extensions import TypedDict

from webtraj.model.base import FrozenModel
from webtraj.model.usage import Usage


class ConstraintCheck(FrozenModel):
    """One constraint as a judge saw it (the constraint-based evaluation paper: ground_truth,
    agent_state, matching)."""

    name: str
    ground_truth: JsonValue
    agent_state: JsonValue = None
    # None: the judge could not tell for this constraint.
    matching: bool | None = None
    reason: str | None = None


class StepCheck(FrozenModel):
    """One constraint at one observation o_t: met, not met, or unknown (None), with what the
    judge observed and why. Curation relabels a prefix ending at o_t with exactly the
    constraints met there; reports show where each constraint was won or lost."""

    name: str
    matching: bool | None = None
    observed: JsonValue = None
    reason: str | None = None


class StepCheckRow(TypedDict):
    """A StepCheck as stored, validated as the same fields without building a model per
    check: a bulk reader (curation) needs only each check's name and verdict, and one model
    per check per observation was a tenth of curating 150k trajectories."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    name: str
    matching: NotRequired[bool | None]
    observed: NotRequired[JsonValue]
    reason: NotRequired[str | None]


# Per observation o_0..o_T, its step checks as rows.
StepMatches = tuple[tuple[StepCheckRow, ...], ...]
STEP_CHECK_ROWS = TypeAdapter(StepMatches)


def check_rows(checks: tuple[tuple[StepCheck, ...], ...]) -> StepMatches:
    """Step checks as rows, for code that reads both forms."""
    return tuple(tuple(StepCheckRow(name=c.name, matching=c.matching) for c in row)
                 for row in checks)


InjectionKind = Literal["override", "addressed_to_evaluator", "addressed_to_agent",
                        "role_marker", "verdict_request"]


class SuspectedInjection(FrozenModel):
    """Page text that addresses the model reading it instead of the page's user: a judge
    reads it as data (its prompt says so), and the flag lets a reviewer and curation see it."""

    kind: InjectionKind
    # The matched words with a little context, as the page shows them (bounded).
    text: str = Field(max_length=300)
    # Which observation (o_0..o_T) and which part of it ("tree", "title", "url", "answer").
    observation: int | None = None
    source: str = "tree"


class Score(FrozenModel):
    evaluator: str = Field(min_length=1)
    value: float | None = Field(default=None, ge=0.0, le=1.0)
    # Why the evaluator could not decide (required when value is None).
    reason: str | None = None
    # True when the evaluator failed on bad input rather than abstaining.
    error: bool = False
    # Per-step values (e.g. CSR of o_t for every step t), None where a step was unscored.
    step_values: tuple[float | None, ...] | None = None
    constraints: tuple[ConstraintCheck, ...] = ()
    # Per-step constraint checks (with `steps=all`): one tuple per observation o_0..o_T.
    step_checks: tuple[tuple[StepCheck, ...], ...] | None = None
    details: dict[str, JsonValue] = Field(default_factory=dict)
    # Text of the judged pages that tried to instruct the judge or the agent (never a reason
    # to change the value: the judge read it as data).
    suspected_injections: tuple[SuspectedInjection, ...] = ()
    # What the evaluator's model calls on this trajectory cost (on its first score only):
    # the judges' share of a trajectory's usage. None: it called no model.
    usage: Usage | None = None

    @model_validator(mode="after")
    def _unscored_has_reason(self) -> Score:
        if self.value is None and not self.reason:
            raise ValueError("an unscored result needs a reason")
        if self.error and self.value is not None:
            raise ValueError("a score marked as error cannot have a value")
        for v in self.step_values or ():
            if v is not None and not 0.0 <= v <= 1.0:
                raise ValueError(f"step value {v} outside [0, 1]")
        return self

    @property
    def scored(self) -> bool:
        return self.value is not None

    @property
    def success(self) -> bool | None:
        """SR for this score: value == 1, or None when unscored."""
        return None if self.value is None else self.value >= 1.0

    @classmethod
    def unscored(cls, evaluator: str, reason: str, *, error: bool = False, **kw) -> Score:
        return cls(evaluator=evaluator, value=None, reason=reason, error=error, **kw)


def upgrade_legacy_score(data: dict[str, Any]) -> dict[str, Any]:
    """A stored score body in the current form; the one reader of the older forms, called
    only where stored score records are loaded (the run index); nothing writes them.
    - Scores stored before `step_checks` kept the per-step matches as
      `details.step_matching` ([{name: bool | None}, ...], one object per observation).
    - Scores stored before `usage` kept the judge's model use as `details.llm_usage` (the
      run-usage form: {"total": ..., "models": {name: ...}})."""
    details = data.get("details")
    if not isinstance(details, dict):
        return data
    rows = details.get("step_matching")
    if data.get("step_checks") is None and isinstance(rows, list) and all(
            isinstance(r, dict) for r in rows):
        details = {k: v for k, v in details.items() if k != "step_matching"}
        data = {**data, "details": details, "step_checks": [
            [{"name": str(k), "matching": v if isinstance(v, bool) else None}
             for k, v in row.items()] for row in rows]}
    used = details.get("llm_usage")
    if data.get("usage") is None and isinstance(used, dict):
        try:
            usage = Usage.from_run_usage(used)
        except ValueError:  # a damaged record: kept as it was, no usage rather than a wrong one
            return data
        details = {k: v for k, v in details.items() if k != "llm_usage"}
        data = {**data, "details": details, "usage": usage}
    return data
