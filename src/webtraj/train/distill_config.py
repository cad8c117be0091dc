"""The distill recipe's settings (`webtraj distill CONFIG`, YAML or JSON): teacher rollouts
-> evaluation -> curation -> training -> student rollouts on the same tasks -> comparison.

`data` picks the constraint-based evaluation paper's Table 2 rows: `success` (trajectories judged
fully successful),
`all` (every trajectory, every step, the original task), `partial` (smallest best prefixes
with valid stops and hindsight relabeling: webtraj curate)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import orjson
from pydantic import Field, JsonValue, ValidationError, model_validator

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.agents.registry import recorded_prompt
from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError, from_validation_error
from webtraj.model.run_settings import run_default
from webtraj.model.suite_registry import default_suite
from webtraj.train.config import TrainSettings

DataChoice = Literal["success", "all", "partial"]


class Rollouts(FrozenModel):
    agent: str = "llm"
    llm: str | None = None
    max_steps: int = Field(default=run_default("max_steps"), ge=1)
    trials: int = Field(default=run_default("trials"), ge=1)
    workers: int = Field(default=run_default("workers"), ge=1)
    # The agent's options (`--agent-option`); for the llm agent its prompt options
    # (observation, image_max_side, action_set, ...), which the records are built with.
    agent_options: dict[str, JsonValue] = Field(default_factory=dict)


class StudentServe(FrozenModel):
    """How the student is served for its rollouts (serve-local on 127.0.0.1)."""

    name: str = "student"
    max_tokens: int = Field(default=512, ge=1)
    max_steps: int | None = Field(default=None, ge=1)  # default: the teacher's
    workers: int = Field(default=1, ge=1)
    # The student's llm agent options; default: the prompt options the records were built
    # with. Any other prompt is refused (a student is evaluated on what it was trained on).
    agent_options: dict[str, JsonValue] | None = None


def differences(a: PromptOptions, b: PromptOptions) -> list[str]:
    """`name: a != b` for each prompt option that differs."""
    da, db = a.model_dump(mode="json"), b.model_dump(mode="json")
    da.update(observation=a.observation.value, image_max_side=a.image_max_side)
    db.update(observation=b.observation.value, image_max_side=b.image_max_side)
    return [f"{k}: {da[k]!r} != {db[k]!r}" for k in da if da[k] != db.get(k)]


class DistillConfig(FrozenModel):
    out: Path
    suite: str = Field(default_factory=default_suite)
    task_ids: tuple[str, ...] = ()
    limit: int | None = Field(default=None, ge=1)
    today: str | None = None
    seed: int = 0
    teacher: Rollouts = Rollouts()
    data: DataChoice = "partial"
    judge: str | None = None  # default: the sandbox oracle (else the rule judge)
    relabel: Literal["rule", "llm"] = "rule"
    relabel_llm: str | None = None
    val_fraction: float = Field(default=0.1, ge=0, lt=1)
    base: str
    train: TrainSettings = TrainSettings()
    student: StudentServe = StudentServe()
    # The prompt the records are built with when the teacher is not the llm agent (a llm
    # teacher's are its agent_options); default: the llm agent's.
    prompt: PromptOptions | None = None

    def prompt_options(self) -> PromptOptions:
        """The prompt the records are built with and the student acts on: the llm teacher's
        own (its observation included), else `prompt`."""
        recorded = recorded_prompt(self.teacher.agent, self.teacher.agent_options)
        return recorded or self.prompt or PromptOptions()

    @model_validator(mode="after")
    def _student_sees_what_it_learns_from(self) -> DistillConfig:
        trained = self.prompt_options()
        teachers = recorded_prompt(self.teacher.agent, self.teacher.agent_options)
        if teachers is not None and self.prompt is not None:
            diff = differences(self.prompt, trained)
            if diff:
                raise ValueError("prompt differs from the llm teacher's agent_options (the "
                                 f"records are built with the teacher's): {'; '.join(diff)}")
        if self.student.agent_options is not None:
            diff = differences(PromptOptions.model_validate(self.student.agent_options),
                               trained)
            if diff:
                raise ValueError(
                    "student.agent_options differ from the prompt the student is trained on "
                    f"(student != teacher): {'; '.join(diff)}; a student is evaluated with "
                    "the observation it was trained on")
        return self


def load_distill_config(path: Path, **overrides: object) -> DistillConfig:
    """Read a YAML or JSON recipe; errors name the file and the field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    try:
        if path.suffix.lower() == ".json":
            data = orjson.loads(raw)
        else:
            import yaml

            data = yaml.safe_load(raw)
    except Exception as exc:  # noqa: BLE001 - any parse error of the user's file
        raise InputError(f"not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}",
                         file=path) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping of settings", file=path)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return DistillConfig.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, file=path) from None
