"""Tasks and their typed constraints (the constraint-based evaluation paper: a task is a set of
(name, value) pairs)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, JsonValue, field_validator

from webtraj.model.action import Action
from webtraj.model.base import Document, FrozenModel

MADE_SELECTION = "made_selection"


class ConstraintType(StrEnum):
    TEXT = "text"
    LOCATION = "location"
    DATE = "date"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ENUM = "enum"


class Constraint(FrozenModel):
    name: str = Field(min_length=1)
    value: str | int | float | bool
    type: ConstraintType = ConstraintType.TEXT
    # Accepted spellings of the value (enum synonyms, location abbreviations).
    aliases: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _strip(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("constraint name must not be blank")
        return v


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Task(Document):
    task_id: str = Field(min_length=1)
    intent: str
    site: str | None = None
    start_url: str | None = None
    constraints: tuple[Constraint, ...] = ()
    difficulty: Difficulty | None = None
    reference_actions: tuple[Action, ...] | None = None
    # Evaluator configs, WebArena-Verified style: [{"evaluator": NAME, ...options}].
    evaluators: tuple[dict[str, JsonValue], ...] = ()
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("constraints")
    @classmethod
    def _unique_names(cls, v: tuple[Constraint, ...]) -> tuple[Constraint, ...]:
        seen: set[str] = set()
        for c in v:
            if c.name in seen:
                raise ValueError(f"duplicate constraint name {c.name!r}")
            seen.add(c.name)
        return v

    @field_validator("evaluators")
    @classmethod
    def _named_evaluators(cls, v: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
        for i, cfg in enumerate(v):
            name = cfg.get("evaluator")
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"evaluator config {i} has no 'evaluator' name")
        return v

    def constraint(self, name: str) -> Constraint | None:
        return next((c for c in self.constraints if c.name == name), None)
