"""Constraint extraction by a model, for tasks that come without constraints (the constraint-based
evaluation paper):
the intent's key constraints as typed (name, value) pairs, plus `made_selection` when the
task asks for one specific listing and does not say "search"."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, field_validator

from webtraj.llm import LLMClient, LLMError, system, user
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType

SYSTEM = """You turn a web task into the list of constraints a correct result must satisfy.

Each constraint has a short snake_case name (location, start_date, end_date, adults,
children, pets, rooms, origin, destination, departure_date, return_date, passengers,
cabin_class, price, rating, amenities such as pool or pet_friendly, and so on), the value the
task asks for, and a type: text, location, date, number, boolean or enum. Dates keep the
task's own wording. Only include what the task states.

If the task is about locating one specific listing (one hotel, one flight, one car...) and it
does not use the word "search", also add {"name": "made_selection", "value": true,
"type": "boolean"}: it is met only on a page dedicated to one listing. When in doubt, add it.

Reply with a JSON list in a ```json block, e.g.
[{"name": "location", "value": "Aspen, CO", "type": "location"},
 {"name": "start_date", "value": "January 08, 2026", "type": "date"}]"""


class ExtractedConstraint(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    value: str | int | float | bool
    type: ConstraintType = ConstraintType.TEXT

    @field_validator("name")
    @classmethod
    def _snake(cls, v: str) -> str:
        v = re.sub(r"[^a-z0-9]+", "_", v.strip().lower()).strip("_")
        if not v:
            raise ValueError("empty constraint name")
        return v

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, v: object) -> object:
        return v if v in {t.value for t in ConstraintType} else ConstraintType.TEXT


class ExtractionError(Exception):
    """The model's constraints could not be read; the reason says why."""


def says_search(intent: str) -> bool:
    return re.search(r"\bsearch(es|ing)?\b", intent, re.IGNORECASE) is not None


async def extract_constraints(client: LLMClient, intent: str) -> tuple[Constraint, ...]:
    try:
        result = await client.structured([system(SYSTEM), user(f"TASK: {intent}")],
                                         list[ExtractedConstraint])
    except LLMError as exc:
        raise ExtractionError(f"extraction call failed: {exc}") from None
    if result.failure is not None:
        raise ExtractionError(result.failure.reason)
    seen: dict[str, Constraint] = {}
    for item in result.value:
        if item.name in seen:
            continue
        if item.name == MADE_SELECTION:
            # The rule is the seed's, not the model's: a task that says "search" never
            # requires a listing page.
            if says_search(intent):
                continue
            seen[item.name] = Constraint(name=MADE_SELECTION, value=True,
                                         type=ConstraintType.BOOLEAN)
            continue
        seen[item.name] = Constraint(name=item.name, value=item.value, type=item.type)
    if not seen:
        raise ExtractionError("the model gave no constraints")
    return tuple(seen.values())
