"""A trajectory's CSR curve as one judge saw it: CSR(o_0..o_T) and, per observation, which
constraints were met. Read from a stored `constraints:<judge>` score with `steps=all`."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.score import Score, StepMatches, check_rows


class CSRCurve(FrozenModel):
    judge: str
    # CSR of o_0..o_T (the observation before each step, then the final one); None where the
    # judge could not decide (unscored), which is neither a 0 nor a 1.
    values: tuple[float | None, ...] = Field(min_length=1)
    # Per observation, each constraint's check: met (True), not met (False), undecided
    # (None). None when the score predates per-step matches; relabeling then cannot be done.
    matching: StepMatches | None = None

    @property
    def unscored(self) -> int:
        return sum(1 for v in self.values if v is None)

    def satisfied(self, t: int, names: tuple[str, ...]) -> tuple[str, ...] | None:
        """Constraints met at o_t, in task order; None if the matches are not known."""
        if self.matching is None:
            return None
        row = {c["name"]: c.get("matching") for c in self.matching[t]}
        if any(row.get(n) is None for n in names):
            return None
        return tuple(n for n in names if row[n])


class CurveProblem(FrozenModel):
    """Why a score gives no usable curve (becomes a drop reason)."""

    reason: str
    detail: str = ""


def curve_from_score(score: Score | None, n_observations: int,
                     matches: StepMatches | None = None
                     ) -> CSRCurve | CurveProblem:
    """The curve in `score`, checked against the trajectory's observation count. `matches`
    stands in for `score.step_checks` when a bulk reader read them apart as rows
    (`score_matches_from_row`)."""
    if score is None:
        return CurveProblem(reason="no_score")
    if score.step_values is None:
        detail = score.reason or "the score has no per-step values (steps=final)"
        return CurveProblem(reason="no_step_scores", detail=detail)
    values = tuple(score.step_values)
    if len(values) != n_observations or not values:
        return CurveProblem(reason="bad_score_shape",
                            detail=f"{len(values)} step values for {n_observations} "
                                   "observations")
    if matches is None and score.step_checks is not None:
        matches = check_rows(score.step_checks)
    # Built from parts the score's validation already checked (one curve per trajectory).
    return CSRCurve.model_construct(
        judge=score.evaluator, values=values,
        matching=matches if matches is not None and len(matches) == n_observations else None)
