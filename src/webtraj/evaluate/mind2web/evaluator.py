"""The `mind2web` evaluator: a trajectory's actions scored step by step against a Mind2Web
task's annotated actions, with the reference metrics of `step_metrics` (element accuracy,
operation F1, step success; the task succeeds when every step does).

The gold steps travel in the evaluator's config on the task (`webtraj import mind2web`
writes them), so any trajectory of the task can be scored: the imported reference (a
sanity check: it scores 1 unless a positive is ranked beyond the recall cap) or an agent's.
Step i of the trajectory (STOP left out) is the prediction for gold step i; a missing step
is a step without prediction (0). `press Enter` acts on the element the previous step
targeted (Mind2Web files Enter as a CLICK on that element).

Value: task success (1.0 or 0.0); `details` are a `Mind2WebTaskScore` (per-task means, the
macro averages of the reference are their means over tasks) plus each step's result."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from webtraj.evaluate.metric_families import Family, Metric
from webtraj.evaluate.mind2web.step_metrics import TOP_K, Mind2WebStepScore, np_mean, score_step
from webtraj.evaluate.protocol import EvalEnv, SyncEvaluator
from webtraj.formats.mind2web.gold import EVALUATOR, GoldStep
from webtraj.formats.mind2web.predictions import StepPrediction
from webtraj.formats.mind2web.steps import Candidate, M2WStep, Operation
from webtraj.model import ActionKind, Score, Trajectory
from webtraj.model.base import FrozenModel

NAME = EVALUATOR

_OP_OF = {ActionKind.CLICK: "CLICK", ActionKind.HOVER: "CLICK", ActionKind.PRESS: "CLICK",
          ActionKind.TYPE: "TYPE", ActionKind.SELECT: "SELECT"}


class Mind2WebOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    evaluator: Literal["mind2web"] = "mind2web"
    gold: tuple[GoldStep, ...] = ()
    top_k: int = TOP_K


class Mind2WebStepDetail(FrozenModel):
    """One step's result as kept with the task's score (the task's ids, website and domain
    are the trajectory's, not repeated per step)."""

    action_uid: str
    element_correct: int
    op_f1: float
    step_success: int
    ref_action: str
    pred_action: str | None = None
    pred_element: str | None = None
    # Positives within the recall cap (empty: the step cannot be solved) and the best rank.
    acceptable: tuple[str, ...]
    best_rank: int | None = None

    @classmethod
    def of(cls, r: Mind2WebStepScore) -> Mind2WebStepDetail:
        return cls.model_validate(r.model_dump(include=set(cls.model_fields)))


class Mind2WebTaskScore(FrozenModel):
    """A task's step metrics: means over its steps (the reference's per-task values)."""

    element_acc: float
    op_f1: float
    step_sr: float
    task_success: int
    steps: int
    predicted_steps: int
    extra_steps: int
    step_scores: tuple[Mind2WebStepDetail, ...]


def _predictions(trajectory: Trajectory) -> list[tuple[str | None, str | None, str]]:
    """(element, op, value) of each acting step, in order."""
    out: list[tuple[str | None, str | None, str]] = []
    last: str | None = None
    for step in trajectory.steps:
        a = step.action
        if a is None or a.kind == ActionKind.STOP:
            if a is None:
                out.append((None, None, ""))
            continue
        element = a.element_id if a.element_id is not None else (
            last if a.kind == ActionKind.PRESS else None)
        element = None if element is None else str(element)
        out.append((element, _OP_OF.get(a.kind, a.kind.value.upper()), a.value or ""))
        last = element or last
    return out


class Mind2WebEvaluator(SyncEvaluator):
    name = NAME

    def __init__(self, options: Mind2WebOptions) -> None:
        self.options = options

    def score(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        gold = self.options.gold
        if not gold:
            return [Score.unscored(NAME, "the task carries no Mind2Web gold steps (import "
                                   "it with `webtraj import mind2web`)")]
        if trajectory.error and not trajectory.steps:
            return [Score.unscored(NAME, f"the episode failed: {trajectory.error}",
                                   error=True)]
        preds = _predictions(trajectory)
        task = trajectory.task
        results: list[Mind2WebStepScore] = []
        for i, g in enumerate(gold):
            step = M2WStep(
                annotation_id=task.task_id, action_uid=g.action_uid, website=task.site or "",
                domain=str(task.metadata.get("domain") or ""),
                operation=Operation(op=g.op, original_op=g.original_op, value=g.value),
                pos_candidates=tuple(
                    Candidate(backend_node_id=p, rank=g.ranks[j] if j < len(g.ranks) else None)
                    for j, p in enumerate(g.positives)))
            pred = None
            if i < len(preds):
                element, op, value = preds[i]
                pred = StepPrediction(annotation_id=task.task_id, action_uid=g.action_uid,
                                      element=element, op=op, value=value)
            results.append(score_step(step, pred, self.options.top_k))
        success = int(all(r.step_success == 1 for r in results))
        details = Mind2WebTaskScore(
            element_acc=np_mean([r.element_correct for r in results]),
            op_f1=np_mean([r.op_f1 for r in results]),
            step_sr=np_mean([r.step_success for r in results]),
            task_success=success, steps=len(results),
            predicted_steps=min(len(preds), len(gold)),
            extra_steps=max(0, len(preds) - len(gold)),
            step_scores=tuple(Mind2WebStepDetail.of(r) for r in results))
        return [Score(evaluator=NAME, value=float(success),
                      details=details.model_dump(mode="json"))]


def factory(options: Mind2WebOptions, env: EvalEnv) -> Mind2WebEvaluator:
    return Mind2WebEvaluator(options)


FAMILY = Family(name="mind2web", label="Mind2Web", order=35,
                        value_label="task success", metrics=(
    Metric(key="element_acc", label="element acc", source="detail", detail="element_acc",
           help="mean over tasks of the share of steps whose element is a positive "
                "(within the recall cap)"),
    Metric(key="op_f1", label="op F1", source="detail", detail="op_f1",
           help="mean over tasks of the operation's token F1 (op word and value)"),
    Metric(key="step_sr", label="step SR", source="detail", detail="step_sr",
           help="mean over tasks of the share of steps with the right element and action"),
    Metric(key="task_sr", label="task SR", source="success",
           help="share of scored tasks whose every step succeeded")))
