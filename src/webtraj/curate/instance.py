"""From one trajectory and its CSR curve(s) to a training instance, or a counted drop.

Two stages, so model relabeling can be batched between them (`curate.pipeline` runs both):
`select_prefix` decides t' and C' (and applies the two-judge filter); `build_instance` turns
the selection and an optional relabeled task into kept steps with the stop rules:

- prefix actions a_0..a_{t'-1} are kept (steps with no valid action are skipped but stay in
  the history; a stop inside the prefix is never kept: its CSR is below C_max <= 1);
- at o_t' a stop is written only where it is valid: C_max = 1 keeps the agent's own stop
  (or adds one when the agent went on); 0 < C_max < 1 gets a stop only against the
  relabeled task, with rewritten reasoning. An own stop at CSR < 1 is never kept as is."""

from __future__ import annotations

from enum import StrEnum

from webtraj.curate.curve import CSRCurve, CurveProblem
from webtraj.curate.prefix import EPS, BestPrefix, best_prefix
from webtraj.curate.relabel import Relabeled, rule_relabel
from webtraj.model.action import Action, ActionKind
from webtraj.model.base import FrozenModel
from webtraj.model.task import Task
from webtraj.model.trajectory import Trajectory


class DropReason(StrEnum):
    UNREADABLE = "unreadable"            # trajectory.json could not be read
    NO_CONSTRAINTS = "no_constraints"    # the task has no constraints to score
    NO_ACTIONS = "no_actions"            # no step was taken
    NO_SCORE = "no_score"                # no constraints:<judge> score (and none computed)
    NO_STEP_SCORES = "no_step_scores"    # the score has no per-step values
    BAD_SCORE_SHAPE = "bad_score_shape"  # per-step values do not match the observations
    ALL_UNSCORED = "all_unscored"        # the judge decided no observation
    ZERO_CSR = "zero_csr"                # C_max = 0
    BEST_AT_START = "best_at_start"      # t' = 0: the start page already had C_max
    NO_STEP_MATCHING = "no_step_matching"  # C' at o_t' unknown, so no relabeling possible
    RELABEL_FAILED = "relabel_failed"    # the model relabeling failed (never faked)
    SECOND_JUDGE_MISSING = "second_judge_missing"  # the second judge gave no usable curve
    JUDGES_DISAGREE = "judges_disagree"  # the two judges differ on t' or on C'
    INVALID = "invalid"                  # a record could not be built (detail says why)


class Drop(FrozenModel):
    reason: DropReason
    detail: str = ""


class Selection(FrozenModel):
    """What the curve(s) say to keep: the prefix up to t' and the constraints met there."""

    best: BestPrefix
    # C' at o_t', in task order (all constraints when C_max = 1).
    satisfied: tuple[str, ...]
    final_csr: float | None

    @property
    def needs_relabel(self) -> bool:
        return not self.best.full


class RecordKind(StrEnum):
    STEP = "step"                      # a prefix action, as the agent took it
    OWN_STOP = "own_stop"              # the agent's stop where CSR = 1
    ADDED_STOP = "added_stop"          # CSR = 1 reached, the agent went on: stop added
    RELABELED_STOP = "relabeled_stop"  # stop against the relabeled task (CSR' = 1)


class KeptStep(FrozenModel):
    # The action is taken at observation o_t (history: steps 0..t-1).
    t: int
    action: Action
    reasoning: str
    kind: RecordKind


class Instance(FrozenModel):
    trajectory_id: str
    source_task_id: str
    # The task the records are written against: the original or the relabeled one.
    task: Task
    relabeled: bool
    c_max: float
    t_best: int
    final_csr: float | None
    satisfied: tuple[str, ...]
    steps: tuple[KeptStep, ...]
    skipped_no_action: int = 0
    # Agent stops that were not kept as is (inside the prefix, or at o_t' with CSR < 1).
    invalid_stops: int = 0
    unscored_before_best: int = 0


def _problem_drop(p: CurveProblem) -> Drop:
    return Drop(reason=DropReason(p.reason), detail=p.detail)


def _outcome_curve(curve: CSRCurve | CurveProblem) -> bool:
    """A whole-task success curve (e.g. MiniWoB++'s reward), not a constraint CSR."""
    return isinstance(curve, CSRCurve) and not curve.judge.startswith("constraints")


def _select_one(traj: Trajectory, curve: CSRCurve | CurveProblem) -> Selection | Drop:
    if not traj.task.constraints and not _outcome_curve(curve):
        return Drop(reason=DropReason.NO_CONSTRAINTS, detail=f"task {traj.task.task_id}")
    if not traj.steps:
        return Drop(reason=DropReason.NO_ACTIONS)
    if isinstance(curve, CurveProblem):
        return _problem_drop(curve)
    if curve.unscored == len(curve.values):
        return Drop(reason=DropReason.ALL_UNSCORED)
    best = best_prefix(curve.values)
    if best is None:
        return Drop(reason=DropReason.ZERO_CSR)
    if best.t_best == 0:
        return Drop(reason=DropReason.BEST_AT_START,
                    detail=f"CSR {best.c_max:.3f} on the start page")
    names = tuple(c.name for c in traj.task.constraints)
    if best.full:
        satisfied = names
    else:
        found = curve.satisfied(best.t_best, names)
        if found is None or len(found) == 0 or (
                abs(len(found) / len(names) - best.c_max) > EPS):
            return Drop(reason=DropReason.NO_STEP_MATCHING,
                        detail="per-step constraint matches missing or inconsistent with CSR")
        satisfied = found
    return Selection(best=best, satisfied=satisfied, final_csr=curve.values[-1])


def select_prefix(traj: Trajectory, curve: CSRCurve | CurveProblem,
                  second: CSRCurve | CurveProblem | None = None) -> Selection | Drop:
    """t' and C' by the first judge; with a second judge, kept only if it picks the same t'
    and the same C' (so both would produce the very same instance)."""
    first = _select_one(traj, curve)
    if second is None or isinstance(first, Drop):
        return first
    if isinstance(second, CurveProblem) or second.unscored == len(second.values):
        return Drop(reason=DropReason.SECOND_JUDGE_MISSING,
                    detail=second.reason if isinstance(second, CurveProblem) else "unscored")
    other = _select_one(traj, second)
    if isinstance(other, Drop):
        return Drop(reason=DropReason.JUDGES_DISAGREE, detail=f"second judge: {other.reason}")
    if other.best.t_best != first.best.t_best or set(other.satisfied) != set(first.satisfied):
        return Drop(reason=DropReason.JUDGES_DISAGREE,
                    detail=f"t' {first.best.t_best} vs {other.best.t_best}")
    return first


# The stop added after a prefix that completed a task without constraints (an outcome curve).
DONE_REASONING = "The page shows that what the task asked for is done, so I stop here."


def _stop(value: str = "") -> Action:
    return Action(kind=ActionKind.STOP, value=value)


def build_instance(traj: Trajectory, sel: Selection, relabeled: Relabeled | None, *,
                   seed: int) -> Instance:
    """Kept steps for a selection. `relabeled` is required to end a partial prefix (C_max <
    1) with a stop; without it the partial prefix is kept with the original task, no stop."""
    t_best = sel.best.t_best
    kept: list[KeptStep] = []
    skipped = invalid = 0
    for step in traj.steps[:t_best]:
        if step.action is None:
            skipped += 1
        elif step.action.kind is ActionKind.STOP:
            invalid += 1
        else:
            kept.append(KeptStep(t=step.index, action=step.action, reasoning=step.reasoning,
                                 kind=RecordKind.STEP))
    own = traj.steps[t_best] if t_best < len(traj.steps) else None
    own_stop = own is not None and own.action is not None and own.action.kind is ActionKind.STOP
    task = traj.task
    if sel.best.full:
        if own_stop:
            kept.append(KeptStep(t=t_best, action=own.action, reasoning=own.reasoning,
                                 kind=RecordKind.OWN_STOP))
        else:
            why = (rule_relabel(traj.task, sel.satisfied, seed=seed).stop_reasoning
                   if traj.task.constraints else DONE_REASONING)
            kept.append(KeptStep(t=t_best, action=_stop(), reasoning=why,
                                 kind=RecordKind.ADDED_STOP))
    elif relabeled is not None:
        task = relabeled.task
        answer = own.action.value if own_stop and own.action.value else ""
        kept.append(KeptStep(t=t_best, action=_stop(answer), reasoning=relabeled.stop_reasoning,
                             kind=RecordKind.RELABELED_STOP))
        invalid += int(own_stop)
    else:
        invalid += int(own_stop)
    return Instance(trajectory_id=traj.trajectory_id, source_task_id=traj.task.task_id,
                    task=task, relabeled=relabeled is not None and not sel.best.full,
                    c_max=sel.best.c_max, t_best=t_best, final_csr=sel.final_csr,
                    satisfied=sel.satisfied, steps=tuple(kept), skipped_no_action=skipped,
                    invalid_stops=invalid,
                    unscored_before_best=sel.best.unscored_before_best)

