"""The `constraints` evaluator: CSR/SR of a trajectory with a chosen judge (seed 003 §2.2).

Config: `{"evaluator": "constraints", "judge": "rule|llm|vlm|oracle", "steps": "final|all"}`.
With `steps="all"` every observation o_0..o_T is judged, giving the per-step CSR curve that
curation uses; the score's value is always the CSR of the final observation."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from webtraj.evaluate.constraints.csr import trajectory_score
from webtraj.evaluate.constraints.extraction import ExtractionError, extract_constraints
from webtraj.evaluate.constraints.judge import ConstraintJudge
from webtraj.evaluate.protocol import EvalEnv
from webtraj.llm import LLMClient
from webtraj.model.score import Score
from webtraj.model.trajectory import Trajectory


class ConstraintsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    evaluator: Literal["constraints"] = "constraints"
    judge: Literal["rule", "llm", "vlm", "oracle"] = "rule"
    steps: Literal["final", "all"] = "final"
    # For tasks without constraints: have a model extract them from the intent first.
    extract: bool = False
    # Rule judge only: what it may read (default data, url and text).
    sources: tuple[Literal["data", "url", "text"], ...] | None = None


class ConstraintsEvaluator:
    def __init__(self, judge: ConstraintJudge, steps: str = "final", *,
                 extractor: LLMClient | None = None) -> None:
        self.judge = judge
        self.steps = steps
        self.extractor = extractor
        self.name = f"constraints:{judge.name}"

    async def evaluate(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        task = trajectory.task
        extracted = False
        if not task.constraints and self.extractor is not None:
            try:
                found = await extract_constraints(self.extractor, task.intent)
            except ExtractionError as exc:
                return [Score.unscored(self.name, f"no constraints: {exc}")]
            task = task.model_copy(update={"constraints": found})
            extracted = True
        if not task.constraints:
            return [Score.unscored(self.name, f"task {task.task_id} has no constraints")]
        observations = trajectory.observations
        if not observations:
            return [Score.unscored(self.name, "trajectory has no observation to judge")]
        if self.steps == "final":
            observations = observations[-1:]
        per_obs = await self.judge.judge(task, observations, trajectory, artifacts)
        score = trajectory_score(self.name, per_obs)
        if extracted:
            extra = [c.model_dump(mode="json") for c in task.constraints]
            score = score.model_copy(update={"details": {**score.details,
                                                         "extracted_constraints": extra}})
        return [score]


def make_judge(name: str, env: EvalEnv, *,
               sources: tuple[str, ...] | None = None) -> ConstraintJudge:
    if name == "oracle":
        oracle = env.oracle
        if oracle is None:
            raise ValueError("the oracle judge needs the sandbox sites' oracle "
                             "(EvalEnv.oracle); it only judges sandbox-site runs")
        from webtraj.evaluate.constraints.oracle_judge import OracleJudge

        return OracleJudge(oracle)
    if name == "rule":
        from webtraj.evaluate.constraints.rule_judge import RuleJudge

        return RuleJudge(sources) if sources else RuleJudge()
    client = env.llm
    if client is None:
        raise ValueError(f"the {name} judge needs a model: pass --llm (EvalEnv.llm)")
    from webtraj.evaluate.constraints.model_judges import ModelJudge

    return ModelJudge(client, mode=name)


def factory(options: dict[str, Any], env: EvalEnv) -> ConstraintsEvaluator:
    opts = ConstraintsOptions.model_validate({"evaluator": "constraints", **options})
    extractor = None
    if opts.extract:
        extractor = env.llm
        if extractor is None:
            raise ValueError("extract=true needs a model: pass --llm")
    if opts.sources is not None and opts.judge != "rule":
        raise ValueError("'sources' applies to the rule judge only")
    return ConstraintsEvaluator(make_judge(opts.judge, env, sources=opts.sources),
                                steps=opts.steps, extractor=extractor)
