"""Refreshing stale task dates (the constraint-based evaluation paper): a task whose dates are past
or less than a month
ahead moves, as a whole, to 1-4 months ahead.

All dates of a task move by the same number of days, so order and durations are kept; the
number is a multiple of 7, so weekdays are kept too ("a Friday" stays right). Every field
that carries the dates moves with them, each mention keeping its written form: the intent,
constraint values and aliases, the start URL, reference actions and evaluator configs.
The shift is drawn from the fitting ones with a seed, so a given (today, seed) gives the
same file."""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

from pydantic import Field, JsonValue

from webtraj.generate.dates import DateMention, Style, find_dates, render, resolve, style_of
from webtraj.generate.options import REFRESH_DEFAULTS
from webtraj.generate.weekdays import attached_weekdays, weekday_text
from webtraj.generate.window import window
from webtraj.model.action import Action
from webtraj.model.base import FrozenModel
from webtraj.model.task import Task

_CALENDAR_NAV = re.compile(r"\b(next|previous|prev)\s+month\b", re.I)


class DateChange(FrozenModel):
    field: str
    old: str
    new: str


class TaskRefresh(FrozenModel):
    """What happened to one task."""

    task_id: str
    status: Literal["refreshed", "fresh", "no_dates"]
    shift_days: int = 0
    earliest: dt.date | None = None
    latest: dt.date | None = None
    changes: tuple[DateChange, ...] = ()
    warnings: tuple[str, ...] = ()


class RefreshReport(FrozenModel):
    today: dt.date
    seed: int
    tasks: int = 0
    refreshed: int = 0
    fresh: int = 0
    no_dates: int = 0
    warnings: int = 0
    bad_records: int = 0
    items: tuple[TaskRefresh, ...] = ()
    errors: tuple[str, ...] = Field(default=(), description="records that could not be read")


# --- the strings of a task that can carry dates ------------------------------------------

def task_strings(task: Task) -> Iterator[tuple[str, str]]:
    """(field path, text) for every string of the task that may hold a date."""
    yield "intent", task.intent
    for c in task.constraints:
        if isinstance(c.value, str):
            yield f"constraints.{c.name}", c.value
        for i, a in enumerate(c.aliases):
            yield f"constraints.{c.name}.aliases[{i}]", a
    if task.start_url:
        yield "start_url", task.start_url
    for i, a in enumerate(task.reference_actions or ()):
        if a.value:
            yield f"reference_actions[{i}].value", a.value
        if a.target is not None:
            yield f"reference_actions[{i}].target.name", a.target.name
    for i, cfg in enumerate(task.evaluators):
        yield from _json_strings(f"evaluators[{i}]", cfg)


def _json_strings(path: str, value: Any) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _json_strings(f"{path}.{k}", v)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _json_strings(f"{path}[{i}]", v)


def map_task_strings(task: Task, fn: Callable[[str, str], str]) -> Task:
    """The task with `fn(path, text)` applied to every string `task_strings` yields (in the
    same order)."""
    intent = fn("intent", task.intent)
    constraints = tuple(
        c.model_copy(update={
            "value": fn(f"constraints.{c.name}", c.value) if isinstance(c.value, str)
            else c.value,
            "aliases": tuple(fn(f"constraints.{c.name}.aliases[{i}]", a)
                             for i, a in enumerate(c.aliases))})
        for c in task.constraints)
    start_url = fn("start_url", task.start_url) if task.start_url else task.start_url
    actions = None
    if task.reference_actions is not None:
        actions = tuple(_map_action(i, a, fn) for i, a in enumerate(task.reference_actions))
    evaluators = tuple(
        _map_json_path(f"evaluators[{i}]", cfg, fn) for i, cfg in enumerate(task.evaluators))
    return task.model_copy(update={
        "intent": intent, "constraints": constraints, "start_url": start_url,
        "reference_actions": actions, "evaluators": evaluators})


def _map_action(i: int, a: Action, fn: Callable[[str, str], str]) -> Action:
    update: dict[str, Any] = {}
    if a.value:
        update["value"] = fn(f"reference_actions[{i}].value", a.value)
    if a.target is not None:
        update["target"] = a.target.model_copy(
            update={"name": fn(f"reference_actions[{i}].target.name", a.target.name)})
    return a.model_copy(update=update) if update else a


def _map_json_path(path: str, value: Any, fn: Callable[[str, str], str]) -> Any:
    if isinstance(value, str):
        return fn(path, value)
    if isinstance(value, dict):
        return {k: _map_json_path(f"{path}.{k}", v, fn) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_map_json_path(f"{path}[{i}]", v, fn) for i, v in enumerate(value)]
    return value


# --- one task ----------------------------------------------------------------------------

def _anchor(task: Task) -> dt.date | None:
    """The date that gives a year to month-day mentions in fields without a full date."""
    for _, text in task_strings(task):
        for m in find_dates(text):
            if m.kind != "md":
                return m.date
    return None


def task_mentions(task: Task, today: dt.date) -> dict[str, list[DateMention]]:
    anchor = _anchor(task) or today
    out: dict[str, list[DateMention]] = {}
    for path, text in task_strings(task):
        found = find_dates(text, anchor=anchor)
        if found:
            out[path] = found
    return out


def choose_shift(earliest: dt.date, latest: dt.date, today: dt.date,
                 rng: random.Random) -> tuple[int, str | None]:
    """Days to add (a multiple of 7) so every date lands 1-4 months ahead; with a warning
    when the dates span more than the window holds."""
    lo, hi = window(today)
    k_min = math.ceil((lo - earliest).days / 7)
    k_max = math.floor((hi - latest).days / 7)
    if k_min <= k_max:
        return 7 * rng.randint(k_min, k_max), None
    return 7 * k_min, (f"the dates span {(latest - earliest).days} days: after the move the "
                       f"last one is more than 4 months ahead")


def shift_text(text: str, days: int, styles: list[Style], anchor: dt.date | None,
               mentions: list[DateMention] | None = None) -> str:
    """`text` with each date moved by `days`, each written as before; weekdays attached to a
    date follow it."""
    found = find_dates(text, anchor=anchor) if mentions is None else mentions
    if not found:
        return text
    delta = dt.timedelta(days=days)
    edits: list[tuple[int, int, str]] = []
    for m in found:
        new_end = m.end_date + delta if m.end_date else None
        edits.append((m.start, m.end, render(m, m.date + delta, resolve(style_of(m), styles),
                                             new_end)))
    for w in attached_weekdays(text, found):
        new = weekday_text(w.date + delta, w.text)
        if new != w.text:
            edits.append((w.start, w.end, new))
    out = text
    for a, b, new in sorted(edits, key=lambda e: -e[0]):
        out = out[:a] + new + out[b:]
    return out


def _group(path: str) -> str:
    """intent, constraints, start_url, reference_actions or evaluators."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


def _hints(path: str, mentions: dict[str, list[DateMention]]) -> list[Style]:
    """Styles that settle what a mention leaves open (a leading zero on day 12, "May" full
    or short): the same text first, then the same kind of field, then the whole task."""
    group = _group(path)
    ordered = ([path] + [p for p in mentions if p != path and _group(p) == group]
               + [p for p in mentions if _group(p) != group])
    return [style_of(m) for p in ordered for m in mentions[p]]


def refresh_task(task: Task, today: dt.date, *, seed: int = REFRESH_DEFAULTS.seed
                 ) -> tuple[Task, TaskRefresh]:
    """The task with its dates moved when stale, and what changed."""
    mentions = task_mentions(task, today)
    all_dates = [d for ms in mentions.values() for m in ms for d in m.dates]
    if not all_dates:
        return task, TaskRefresh(task_id=task.task_id, status="no_dates")
    earliest, latest = min(all_dates), max(all_dates)
    if earliest >= window(today)[0]:
        return task, TaskRefresh(task_id=task.task_id, status="fresh", earliest=earliest,
                                 latest=latest)
    rng = random.Random(f"{seed}:{task.task_id}:{today.isoformat()}")
    days, warning = choose_shift(earliest, latest, today, rng)
    anchor = _anchor(task) or today
    changes: list[DateChange] = []

    def move(path: str, text: str) -> str:
        if path not in mentions:
            return text
        new = shift_text(text, days, _hints(path, mentions), anchor, mentions[path])
        if new != text:
            changes.append(DateChange(field=path, old=text, new=new))
        return new

    new_task = map_task_strings(task, move)
    refresh_meta: dict[str, JsonValue] = {"today": today.isoformat(), "shift_days": days}
    new_task = new_task.model_copy(update={
        "metadata": {**task.metadata, "date_refresh": refresh_meta}})
    warnings = [warning] if warning else []
    if any(a.target is not None and _CALENDAR_NAV.search(a.target.name)
           for a in task.reference_actions or ()):
        warnings.append("reference actions page through a calendar: the number of month "
                        "steps may differ after the move")
    delta = dt.timedelta(days=days)
    return new_task, TaskRefresh(task_id=task.task_id, status="refreshed", shift_days=days,
                                 earliest=earliest + delta, latest=latest + delta,
                                 changes=tuple(changes), warnings=tuple(warnings))


def refresh_tasks(tasks: list[Task], today: dt.date, *, seed: int = REFRESH_DEFAULTS.seed
                  ) -> tuple[list[Task], RefreshReport]:
    out: list[Task] = []
    items: list[TaskRefresh] = []
    for t in tasks:
        new, item = refresh_task(t, today, seed=seed)
        out.append(new)
        items.append(item)
    report = RefreshReport(
        today=today, seed=seed, tasks=len(tasks),
        refreshed=sum(i.status == "refreshed" for i in items),
        fresh=sum(i.status == "fresh" for i in items),
        no_dates=sum(i.status == "no_dates" for i in items),
        warnings=sum(len(i.warnings) for i in items), items=tuple(items))
    return out, report
