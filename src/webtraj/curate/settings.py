"""What curation decides with: the judge(s) whose per-step curves it reads, how partial
prefixes are relabeled, and the seed of its wording and split. The executors (one process,
worker processes, Ray) carry these settings as JSON and hand them to `curate.pipeline`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.model.suite_registry import outcome_judges

# Judges that are whole evaluators with a per-step success curve of their own (the task has
# no constraints; the curve is 0 until the task is done, then 1): those the suites contribute
# (MiniWoB++'s reward), as their registry entries name them.
OUTCOME_JUDGES = outcome_judges()
JUDGES = ("rule", "llm", "vlm", "oracle", *OUTCOME_JUDGES)


def curve_evaluator(judge: str) -> str:
    """The stored score a judge's curve is read from."""
    return judge if judge in OUTCOME_JUDGES else f"constraints:{judge}"


def curve_config(judge: str) -> dict[str, Any]:
    """The evaluator config that computes a judge's per-step curve."""
    if judge in OUTCOME_JUDGES:
        return {"evaluator": judge}
    return {"evaluator": "constraints", "judge": judge, "steps": "all"}


class CurateSettings(BaseModel):
    """What a chunk worker needs (sent to worker processes and Ray tasks as JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    judge: str
    second_judge: str | None = Field(default=None, description="Keep only instances on "
                                     "which this judge agrees (same t' and same C').")
    relabel: Literal["rule", "llm", "none"] = Field(default="rule", description=(
        "rule | llm | none: how partial prefixes (0 < C_max < 1) get their task rewritten."))
    llm: str | None = None
    no_cache: bool = False
    seed: int = Field(default=0, description="Seeds relabel wording and the split.")
    # The prompt the records carry: the llm agent's, with these options.
    prompt: PromptOptions = PromptOptions()

    def evaluators(self) -> list[str]:
        return [curve_evaluator(j) for j in (self.judge, self.second_judge) if j]
