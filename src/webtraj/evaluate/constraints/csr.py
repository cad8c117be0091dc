"""Constraint Satisfaction Rate (the constraint-based evaluation paper, §2.2): CSR_d(o) = (1/n) Σ
1[f(c_i | o, d) = v_i].

A trajectory's CSR is the CSR of its final observation and SR = 1[CSR = 1]. A constraint the
judge could not decide makes that observation unscored (with the reason), never a 0."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.model.score import ConstraintCheck, Score, StepCheck
from webtraj.model.task import Task


class ObservationCSR:
    """CSR of one observation, or the reason it could not be computed."""

    __slots__ = ("checks", "reason", "value")

    def __init__(self, checks: Sequence[ConstraintCheck] | None, reason: str | None = None):
        self.checks = tuple(checks or ())
        self.value: float | None = None
        self.reason = reason
        if reason is None:
            undecided = [c.name for c in self.checks if c.matching is None]
            if not self.checks:
                self.reason = "task has no constraints"
            elif undecided:
                self.reason = "judge could not decide: " + ", ".join(undecided)
            else:
                self.value = sum(1 for c in self.checks if c.matching) / len(self.checks)


def unreadable_csr(task: Task, why: str) -> ObservationCSR:
    """An observation whose page could not be read: every constraint unknown, with why."""
    reason = f"the observation could not be read: {why}"
    return ObservationCSR([ConstraintCheck(name=c.name, ground_truth=c.value, matching=None,
                                           reason=reason) for c in task.constraints],
                          reason=reason)


def trajectory_score(evaluator: str, per_observation: Sequence[ObservationCSR]) -> Score:
    """Score of a trajectory from the CSR of each observation o_0..o_T (the last one is the
    final observation). With one element only the final CSR is known."""
    if not per_observation:
        return Score.unscored(evaluator, "trajectory has no observation to judge")
    final = per_observation[-1]
    steps = tuple(o.value for o in per_observation) if len(per_observation) > 1 else None
    details: dict = {"sr": None if final.value is None else float(final.value >= 1.0)}
    step_checks = None
    if steps is not None:
        step_checks = tuple(tuple(StepCheck(name=c.name, matching=c.matching,
                                            observed=c.agent_state, reason=c.reason)
                                  for c in o.checks) for o in per_observation)
    return Score(evaluator=evaluator, value=final.value,
                 reason=final.reason if final.value is None else None, step_values=steps,
                 constraints=final.checks, step_checks=step_checks, details=details)
