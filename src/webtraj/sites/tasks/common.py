"""Building blocks for task generators: constraints, reference actions, evaluator configs."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Difficulty, Task
from webtraj.sites.common.dates import long_date

# The suite the sandbox sites' tasks belong to (`metadata.suite`), as the suite registry
# names it (`webtraj.model.suite_registry`).
SUITE = "booking"

# Constraint counts per task: means 4.0 / 5.5 / 7.4 (BookingArena: 3.95 / 5.45 / 7.30).
SIZES = {Difficulty.EASY: (3, 4, 4, 4, 4, 4, 4, 5),
         Difficulty.MEDIUM: (5, 5, 5, 5, 6, 6, 6, 6),
         Difficulty.HARD: (7, 7, 7, 7, 7, 8, 8, 8)}
ORACLE_EVAL = {"evaluator": "constraints", "judge": "oracle", "steps": "all"}
T = ConstraintType


def C(name: str, value: str | int | bool, type: ConstraintType = T.TEXT,
      aliases: tuple[str, ...] = ()) -> Constraint:
    return Constraint(name=name, value=value, type=type, aliases=aliases)


def selected() -> Constraint:
    return C(MADE_SELECTION, True, T.BOOLEAN)


def click(role: str, name: str, exact: bool = True, nth: int = 0) -> Action:
    return Action(kind=ActionKind.CLICK, target=ElementTarget(role=role, name=name, exact=exact,
                                                              nth=nth))


def fill(role: str, name: str, value: str, enter: bool = False) -> Action:
    return Action(kind=ActionKind.TYPE, value=value, press_enter=enter,
                  target=ElementTarget(role=role, name=name))


def choose(name: str, value: str) -> Action:
    return Action(kind=ActionKind.SELECT, value=value,
                  target=ElementTarget(role="combobox", name=name))


def stop() -> Action:
    return Action(kind=ActionKind.STOP, value="")


def trip_dates(rng: random.Random, today: dt.date, max_nights: int = 6) -> tuple[dt.date, dt.date]:
    """A stay that starts 1-4 months after today (the constraint-based evaluation paper's rule for
    task dates)."""
    start = today + dt.timedelta(days=rng.randint(32, 112))
    return start, start + dt.timedelta(days=rng.randint(2, max_nights))


def d(day: dt.date) -> str:
    return long_date(day)


def navigation_eval(placeholder: str, path: str, query: dict[str, str | list[str]]) -> dict:
    """WebArena-Verified NetworkEventEvaluator: the last navigation lands on `path` with these
    query values; parameters the task does not constrain are ignored. Place names are left
    to the constraint evaluator: the sites accept many spellings of a place and send the one
    typed, so a raw query value would fail correct runs."""
    keep = "|".join(sorted(query))
    config = {"evaluator": "NetworkEventEvaluator", "last_event_only": True,
              "ignored_query_params_patterns": [f"^(?!({keep})$)"] if keep else [".*"],
              "expected": {"url": f"{placeholder}{path}", "http_method": "GET",
                           "response_status": 200,
                           "query_params": {k: v if isinstance(v, list) else [v]
                                            for k, v in query.items()}}}
    schema = date_schema(query)
    if schema:
        config["query_params_schema"] = schema
    return config


def date_schema(query: dict[str, str | list[str]]) -> dict | None:
    """A `query_params_schema` that compares ISO-date parameters as dates, so a site that
    sends the date as typed ("April 09, 2026") still matches. Like the reference's own
    schemas it names every parameter (an unnamed one cannot be normalized)."""
    def is_date(v: str | list[str]) -> bool:
        return isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) is not None

    if not any(is_date(v) for v in query.values()):
        return None
    props = {k: {"type": "array", "items": (
        {"type": "string", "format": "date"} if is_date(v) else {"type": "string"})}
        for k, v in query.items()}
    return {"type": "object", "properties": props}


def no_payment_eval(placeholder: str, path: str) -> dict:
    return {"evaluator": "NetworkEventEvaluator", "should_not_exist": True,
            "expected": {"url": f"{placeholder}{path}", "http_method": "POST"}}


@dataclass
class Draft:
    """A task under construction: constraints, intent parts and actions, in order."""

    constraints: list[Constraint] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    # Which reference action (index) makes each constraint true; used by the ablation test.
    sets: dict[str, int] = field(default_factory=dict)

    def add(self, c: Constraint, *actions: Action) -> None:
        self.constraints.append(c)
        if actions:
            self.sets[c.name] = len(self.actions) + len(actions) - 1
        self.actions.extend(actions)

    def act(self, *actions: Action) -> None:
        self.actions.extend(actions)

    def mark(self, name: str) -> None:
        """The last action added is the one that makes `name` true."""
        self.sets[name] = len(self.actions) - 1


def make_task(*, site: str, index: int, difficulty: Difficulty, intent: str, start_url: str,
              draft: Draft, evaluators: list[dict], placeholder: str) -> Task:
    names = {c.name for c in draft.constraints}
    return Task(
        task_id=f"booking.{site}.{index:02d}", intent=intent, site=site, start_url=start_url,
        constraints=tuple(draft.constraints), difficulty=difficulty,
        reference_actions=(*draft.actions, stop()),
        evaluators=(*evaluators, ORACLE_EVAL),
        # The flights site is client-rendered: its state travels in XHR calls, not page loads,
        # so its network checks must not be limited to the last navigation.
        metadata={"suite": SUITE, "placeholder": placeholder,
                  "task_type": "RETRIEVE" if site == "flights" else "NAVIGATE",
                  "sets": {k: v for k, v in draft.sets.items() if k in names}})


def join(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
