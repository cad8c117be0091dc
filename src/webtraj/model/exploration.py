"""Exploration without a task (`webtraj explore`): who browses (a persona) and with which
seed, carried by the exploration task so that the episode, its trajectory and every task
labeled from it say where they came from."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.task import Task

EXPLORATION_KEY = "exploration"
ExplorerPolicy = Literal["persona", "llm"]


class Persona(FrozenModel):
    """A person with a purpose: what they are like decides what they search for."""

    name: str = Field(min_length=1)
    about: str = Field(min_length=1, description="one sentence, in the persona's voice")
    party: Literal["solo", "couple", "family", "group"] = "couple"
    budget: Literal["low", "mid", "high"] = "mid"
    # Words of the filters this person likes to set (amenities, classes, modes).
    likes: tuple[str, ...] = ()
    # How many things they look at after their first search before they stop.
    patience: int = Field(default=6, ge=1, le=40)


class Exploration(FrozenModel):
    """One exploration episode: the persona, the seed its choices are drawn with, the policy."""

    persona: Persona
    seed: int
    policy: ExplorerPolicy = "persona"
    # Sandbox date the episode's dates are drawn around (ISO), when the sites are a sandbox.
    today: str | None = None

    @classmethod
    def of(cls, task: Task) -> Exploration | None:
        """The exploration a task carries (`metadata.exploration`), typed."""
        raw = task.metadata.get(EXPLORATION_KEY)
        return cls.model_validate(raw) if isinstance(raw, dict) else None

    def stamp(self) -> dict:
        """What a task's metadata carries."""
        return {EXPLORATION_KEY: self.model_dump(mode="json")}
