"""The `constraints` evaluator: CSR/SR of a trajectory with a chosen judge (the constraint-based
evaluation paper, §2.2).

Config: `{"evaluator": "constraints", "judge": "rule|llm|vlm|oracle", "steps": "final|all"}`.
`judge` may also name a user's judge: an entry point of the `webtraj.judges` group or a spec
`my_pkg.mod:MyJudge` (a class or factory implementing `ConstraintJudge`, its options model in
`Options`, given as `judge_options`; called with `options=`, and `env=`/`llm=` when it has
such parameters).
With `steps="all"` every observation o_0..o_T is judged, giving the per-step CSR curve that
curation uses; the score's value is always the CSR of the final observation."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from webtraj.evaluate.constraints.csr import ObservationCSR, trajectory_score, unreadable_csr
from webtraj.evaluate.constraints.extraction import ExtractionError, extract_constraints
from webtraj.evaluate.constraints.judge import ConstraintJudge
from webtraj.evaluate.constraints.judge_plugins import (
    BUILTIN_JUDGES,
    load_judge,
    make_plugin_judge,
)
from webtraj.evaluate.page_flags import observation_flags
from webtraj.evaluate.protocol import EvalEnv
from webtraj.llm import LLMClient
from webtraj.model.plugins import options_model_of, validate_options
from webtraj.model.score import Score
from webtraj.model.trajectory import Trajectory

# Which observations the judge reads: the final one, or every step's as well.
JudgedSteps = Literal["final", "all"]


class ConstraintsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    evaluator: Literal["constraints"] = "constraints"
    # rule | llm | vlm | oracle, an entry point of `webtraj.judges`, or pkg.mod:Judge
    judge: str = "rule"
    judge_options: dict[str, Any] = {}
    steps: JudgedSteps = Field(
        default="final", description="final | all: judge every observation too (step-level "
        "agreement and per-step CSR; model judges cost more).")
    # For tasks without constraints: have a model extract them from the intent first.
    extract: bool = False
    # Rule judge only: what it may read (default data, url and text).
    sources: tuple[Literal["data", "url", "text"], ...] | None = None

    @model_validator(mode="after")
    def _known_judge(self) -> ConstraintsOptions:
        if self.judge in BUILTIN_JUDGES:
            if self.judge_options:
                raise ValueError(f"judge_options apply to plug-in judges, not {self.judge!r}")
        else:  # load it now: a bad judge or option fails before any episode runs
            target = load_judge(self.judge)
            validate_options(options_model_of(target), self.judge_options,
                             owner=f"judge {self.judge!r}")
        return self


class ConstraintsEvaluator:
    def __init__(self, judge: ConstraintJudge,
                 steps: JudgedSteps = ConstraintsOptions.model_fields["steps"].default, *,
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
        first = 0
        if self.steps == "final":
            first = len(observations) - 1
            observations = observations[-1:]
        per_obs = await self._judge(task, observations, trajectory, artifacts)
        score = trajectory_score(self.name, per_obs)
        flags = observation_flags(observations, first)
        if flags:
            score = score.model_copy(update={"suspected_injections": flags})
        if extracted:
            extra = [c.model_dump(mode="json") for c in task.constraints]
            score = score.model_copy(update={"details": {**score.details,
                                                         "extracted_constraints": extra}})
        return [score]


    async def _judge(self, task, observations, trajectory, artifacts) -> list[ObservationCSR]:
        """The judge on the observations it can read; an unreadable page is unknown for
        every judge that reads the page (all but those declaring `reads_page = False`)."""
        if not getattr(self.judge, "reads_page", True):
            return await self.judge.judge(task, observations, trajectory, artifacts)
        readable = [o for o in observations if o.unreadable is None]
        judged = iter(await self.judge.judge(task, readable, trajectory, artifacts)
                      if readable else ())
        return [next(judged) if o.unreadable is None else unreadable_csr(task, o.unreadable)
                for o in observations]


def make_judge(name: str, env: EvalEnv, *, sources: tuple[str, ...] | None = None,
               options: dict[str, Any] | None = None) -> ConstraintJudge:
    if name not in BUILTIN_JUDGES:
        return make_plugin_judge(name, options or {}, env)
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


def factory(opts: ConstraintsOptions, env: EvalEnv) -> ConstraintsEvaluator:
    extractor = None
    if opts.extract:
        extractor = env.llm
        if extractor is None:
            raise ValueError("extract=true needs a model: pass --llm")
    if opts.sources is not None and opts.judge != "rule":
        raise ValueError("'sources' applies to the rule judge only")
    judge = make_judge(opts.judge, env, sources=opts.sources, options=opts.judge_options)
    return ConstraintsEvaluator(judge,
                                steps=opts.steps, extractor=extractor)
