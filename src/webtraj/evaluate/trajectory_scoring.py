"""Scoring a stored trajectory with the evaluators its task declares (or ones given on the
command line). A config that cannot be used, or an evaluator that fails, becomes an unscored
score with the reason: one bad config never stops the run.

An episode that ended in an infrastructure error (model endpoint down, browser crash,
timeout: `Trajectory.error`) is never judged: each evaluator gets an unscored score marked
as an error with the episode's error as the reason, so no 0 (or 1) is ever stored for it and
scoring it again cannot bring one back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from webtraj.evaluate.protocol import EvalEnv, Evaluator
from webtraj.evaluate.registry import create
from webtraj.llm.usage import Usage, usage_scope
from webtraj.model import InputError, Score, Trajectory


async def score_trajectory(trajectory: Trajectory, artifacts: Path | None, env: EvalEnv,
                           configs: Sequence[Mapping[str, Any]] | None = None) -> list[Score]:
    configs = list(trajectory.task.evaluators if configs is None else configs)
    scores: list[Score] = []
    for i, config in enumerate(configs):
        name = str(config.get("evaluator", f"evaluator[{i}]"))
        try:
            evaluator = create(config, env, record=trajectory.task.task_id)
        except (InputError, ValueError) as exc:
            scores.append(Score.unscored(name, f"bad evaluator config: {exc}", error=True))
            continue
        scores.extend(await run_evaluator(evaluator, trajectory, artifacts))
    return _distinct_names(scores)


async def run_evaluator(evaluator: Evaluator, trajectory: Trajectory,
                        artifacts: Path | None) -> list[Score]:
    """One evaluator on one trajectory: an episode that ended in an error is not judged, and
    an evaluator that fails gives an unscored error score, never a number."""
    if trajectory.error:
        return [episode_error_score(evaluator.name, trajectory.error)]
    try:
        with usage_scope() as used:
            got = await evaluator.evaluate(trajectory, artifacts)
        return _with_usage(got, used.snapshot())
    except Exception as exc:  # an evaluator bug is reported, never turned into a score
        return [Score.unscored(evaluator.name, f"evaluator failed: {type(exc).__name__}: {exc}",
                               error=True)]


def _with_usage(scores: list[Score], usage: Usage) -> list[Score]:
    """The evaluator's model use on this trajectory, kept with its (first) score (the judges'
    share of a trajectory's usage)."""
    if not usage.models or not scores:
        return scores
    return [scores[0].model_copy(update={"usage": usage}), *scores[1:]]


def episode_error_score(evaluator: str, error: str) -> Score:
    return Score.unscored(evaluator, f"not scored: the episode ended in an error ({error})",
                          error=True)


def _distinct_names(scores: list[Score]) -> list[Score]:
    """Two configs of the same evaluator (e.g. two network checks) keep apart in the store."""
    seen: dict[str, int] = {}
    out = []
    for s in scores:
        n = seen.get(s.evaluator, 0)
        seen[s.evaluator] = n + 1
        out.append(s if n == 0 else s.model_copy(update={"evaluator": f"{s.evaluator}#{n + 1}"}))
    return out


def task_score(values: Sequence[float | None]) -> float | None:
    """WebArena's rule over a trajectory's evaluator values: 1 only if every evaluator scored
    1; unscored (None) if any is unscored, or there is none."""
    if not values or any(v is None for v in values):
        return None
    return float(all(v >= 1.0 for v in values))
