"""Rule-based hindsight relabeling (the constraint-based evaluation paper, §2.2): a task text that
states exactly the
constraints C' met at o_t', written from the structured constraints, plus a stop reasoning
that agrees with it.

Each constraint becomes one phrase (dates "Month DD, YYYY", booleans as amenity phrases,
`made_selection` as "open its page"); the wording is chosen with a seeded generator so the
data is varied yet reproducible. The phrases are returned too, so tests can check that the
text names every kept constraint and none of the removed ones."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from collections.abc import Sequence

from webtraj.model.base import FrozenModel
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Task

RELABEL_MARK = "~relabel"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")

# (singular, plural) of what a site lists.
_NOUNS = {"hotels": ("a hotel", "hotels"), "rentals": ("a vacation rental", "vacation rentals"),
          "flights": ("a flight", "flights"), "transit": ("a trip", "trips"),
          "cars": ("a rental car", "rental cars")}

# Boolean constraints as amenity phrases (value true); false becomes "without ...".
_AMENITIES = {
    "pool": ("with a pool", "that has a pool"),
    "pet_friendly": ("that allows pets", "that is pet-friendly"),
    "free_cancellation": ("with free cancellation", "that can be cancelled for free"),
    "breakfast": ("with breakfast included", "that includes breakfast"),
    "parking": ("with parking", "that offers parking"),
    "hot_tub": ("with a hot tub", "that has a hot tub"),
    "fireplace": ("with a fireplace", "that has a fireplace"),
    "ocean_view": ("with an ocean view", "that looks out on the ocean"),
    "spa": ("with a spa", "that has a spa"),
    "gps": ("with GPS", "that comes with GPS"),
    "child_seat": ("with a child seat", "that comes with a child seat"),
    "wifi": ("with Wi-Fi", "that has Wi-Fi"),
}

# Phrase templates per constraint name; {v} is the value as written (dates formatted).
_NAMED = {
    "location": ("in {v}", "located in {v}"),
    "origin": ("from {v}", "departing from {v}"),
    "destination": ("to {v}", "going to {v}"),
    "start_date": ("starting on {v}", "from {v}"),
    "end_date": ("ending on {v}", "until {v}"),
    "checkin": ("checking in on {v}", "with check-in on {v}"),
    "checkout": ("checking out on {v}", "with check-out on {v}"),
    "departure_date": ("departing on {v}", "leaving on {v}"),
    "return_date": ("returning on {v}", "coming back on {v}"),
    "travel_date": ("on {v}", "travelling on {v}"),
    "pickup_date": ("picked up on {v}", "with pick-up on {v}"),
    "dropoff_date": ("returned on {v}", "with drop-off on {v}"),
    "pickup_time": ("with pick-up at {v}", "picked up at {v}"),
    "dropoff_time": ("with drop-off at {v}", "returned at {v}"),
    "depart_after": ("leaving after {v}", "departing later than {v}"),
    "departure_time": ("departing in the {v}", "leaving in the {v}"),
    "airline": ("with {v}", "flown by {v}"),
    "cabin_class": ("in {v} class", "with {a_v} class seat"),
    "car_type": ("in the {v} category", "of the {v} class"),
    "fare_class": ("with {a_v} fare", "on {a_v} ticket"),
    "fare_type": ("with {a_v} fare", "on {a_v} ticket"),
    "mode": ("by {v}", "travelling by {v}"),
    "property_type": ("that is {a_v}", "of type {v}"),
    "room_type": ("with {a_v}", "booking {a_v}"),
    "seat": ("with {a_v} seat", "with a seat by the {v}"),
    "transmission": ("with {v} transmission", "with {a_v} gearbox"),
    "trip_type": ("as {a_v} trip", "for {a_v} journey"),
    "min_stars": ("rated {v} stars or more", "with at least {v} stars"),
    "min_bedrooms": ("with at least {v} bedrooms", "with {v} or more bedrooms"),
    "max_price": ("costing at most {v}", "priced at {v} or less"),
    "driver_age": ("for a driver aged {v}", "with {a_v}-year-old driver"),
}

# Counted things: name -> (singular, plural) noun.
_COUNTS = {"adults": ("adult", "adults"), "children": ("child", "children"),
           "pets": ("pet", "pets"), "rooms": ("room", "rooms"),
           "passengers": ("passenger", "passengers"), "guests": ("guest", "guests"),
           "travelers": ("traveler", "travelers"), "travellers": ("traveller", "travellers")}

_SELECT_OPENERS = ("Find {noun} {what}, and open its page.",
                   "Locate {noun} {what}, then open its page.",
                   "Pick {noun} {what}, and open its page.",
                   "Open the page of {noun} {what}.")
_SELECT_ONLY = ("Find {noun} and open its page.", "Open the page of {noun}.")
_SEARCH_OPENERS = ("Search for {plural} {what}.",
                   "Look up {plural} {what}.",
                   "Show {plural} {what}.",
                   "Get a list of {plural} {what}.")
_SEARCH_ONLY = ("Search for {plural}.", "Show {plural} on this site.")
_STOP_REASONING = (
    "The page now shows {what}. That is everything the task asks for, so I am done.",
    "Everything the task asks for is on this page: {what}. I stop here.",
    "I can see {what} on this page, which covers the whole task. Nothing is left to do.",
)
_STOP_SELECT_ONLY = ("This is the page of one listing, which is what the task asks for, so "
                     "I am done.",)


class Relabeled(FrozenModel):
    task: Task
    stop_reasoning: str
    # The phrase that states each kept constraint (name -> phrase), for checks and tests.
    phrases: dict[str, str]


def format_date(value: object) -> str:
    """Dates as "Month DD, YYYY" (the constraint-based evaluation paper); text that is not a date
    stays as written."""
    text = str(value).strip()
    day: dt.date | None = None
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        m = re.fullmatch(r"([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text)
        if m:
            month = next((i + 1 for i, full in enumerate(_MONTHS)
                          if len(m.group(1)) >= 3 and full.lower().startswith(
                              m.group(1).lower())), None)
            if month:
                try:
                    day = dt.date(int(m.group(3)), month, int(m.group(2)))
                except ValueError:
                    day = None
    if day is None:
        return text
    return f"{_MONTHS[day.month - 1]} {day.day:02d}, {day.year}"


_CLASSES = ("first", "second", "business", "economy", "premium economy")


def _article(v: str) -> str:
    """"a cabin", "an apartment", "an 8-year-old" (by sound of the first letter/digit)."""
    first = v.strip()[:1].lower()
    vowel = first in "aeio" or v.strip().lower().startswith(("8", "11", "18", "un"))
    return f"{'an' if vowel else 'a'} {v}"


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _value_text(c: Constraint) -> str:
    if c.type is ConstraintType.DATE:
        return format_date(c.value)
    if isinstance(c.value, float) and c.value.is_integer():
        return str(int(c.value))
    if isinstance(c.value, str):
        return c.value.replace("_", "-") if c.type is ConstraintType.ENUM else c.value
    return str(c.value)


def phrase(c: Constraint, rng: random.Random, *, has_origin: bool) -> str:
    """One constraint as a phrase that can follow a noun ("a hotel ...")."""
    name = c.name
    if isinstance(c.value, bool) or c.type is ConstraintType.BOOLEAN:
        truthy = c.value is True or str(c.value).strip().lower() in ("true", "yes", "1")
        if truthy and name in _AMENITIES:
            return rng.choice(_AMENITIES[name])
        return f"with {_words(name)}" if truthy else f"without {_words(name)}"
    v = _value_text(c)
    if name == "max_stops" and v in ("0", "nonstop"):
        return rng.choice(("nonstop", "with no stops"))
    if name == "max_stops":
        return f"with at most {v} stop{'s' if v != '1' else ''}"
    if name in _COUNTS:
        one, many = _COUNTS[name]
        noun = one if v == "1" else many
        return rng.choice((f"for {v} {noun}", f"with {v} {noun}")) if name in (
            "adults", "passengers", "guests", "travelers", "travellers") else f"with {v} {noun}"
    if name == "destination" and not has_origin:
        return rng.choice(("in {v}", "located in {v}")).format(v=v)
    if name in _NAMED:
        if name in ("fare_class", "cabin_class") and v.lower() in _CLASSES:
            v = v.lower() + ("-class" if name == "fare_class" else "")
        return rng.choice(_NAMED[name]).format(v=v, a_v=_article(v))
    if c.type is ConstraintType.DATE:
        return rng.choice((f"with {_words(name)} {v}", f"on {v} ({_words(name)})"))
    if c.type is ConstraintType.LOCATION:
        return f"in {v}"
    return f"with {_words(name)} {v}"


def relabeled_task_id(task_id: str, satisfied: Sequence[str]) -> str:
    """`<id>~relabel-<hash of C'>`: two trials that met different subsets of the same task
    give two different tasks, so each id names one constraint set."""
    digest = hashlib.blake2b("\x1f".join(sorted(satisfied)).encode(), digest_size=3).hexdigest()
    return f"{task_id}{RELABEL_MARK}-{digest}"


def relabel_rng(seed: int, task_id: str, satisfied: Sequence[str]) -> random.Random:
    """Wording depends only on (seed, task, C'): the same relabeled task reads the same in
    every trajectory, and never on dict order or time."""
    key = f"{seed}\x1f{task_id}\x1f" + "\x1f".join(sorted(satisfied))
    return random.Random(int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest()))


def _noun(task: Task) -> tuple[str, str]:
    if task.site in _NOUNS:
        return _NOUNS[task.site]
    names = {c.name for c in task.constraints}
    if {"origin", "destination"} <= names:
        return ("a trip", "trips")
    return ("a listing", "listings")


def _join(parts: Sequence[str]) -> str:
    """"in Lisbon, from March 05, 2026, for 3 adults and with a pool"."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def rule_relabel(task: Task, satisfied: Sequence[str], *, seed: int) -> Relabeled:
    """The task restated with only the constraints in `satisfied` (names from task order)."""
    keep = set(satisfied)
    rng = relabel_rng(seed, task.task_id, satisfied)
    has_origin = task.constraint("origin") is not None
    kept = [c for c in task.constraints if c.name in keep]
    select = any(c.name == MADE_SELECTION and c.value is True for c in kept)
    phrases = {c.name: phrase(c, rng, has_origin=has_origin)
               for c in kept if c.name != MADE_SELECTION}
    if select:
        phrases[MADE_SELECTION] = "open its page"
    noun, plural = _noun(task)
    listed = [p for n, p in phrases.items() if n != MADE_SELECTION]
    what = _join(listed)
    if select:
        intent = rng.choice(_SELECT_OPENERS if what else _SELECT_ONLY).format(
            noun=noun, what=what).replace("  ", " ")
    else:
        intent = rng.choice(_SEARCH_OPENERS if what else _SEARCH_ONLY).format(
            plural=plural, what=what)
    if listed:
        subject = (f"{noun} " if select else f"{plural} ") + what
        reasoning = rng.choice(_STOP_REASONING).format(what=subject)
    else:
        reasoning = _STOP_SELECT_ONLY[0]
    # A copy with valid parts (a subset of the task's constraints, new strings), so it
    # needs no second validation of the whole task.
    new_task = task.model_copy(update={
        "task_id": relabeled_task_id(task.task_id, satisfied), "intent": intent,
        "constraints": tuple(kept), "reference_actions": None, "evaluators": (),
        "metadata": {**task.metadata, "relabeled_from": task.task_id,
                     "original_intent": task.intent}})
    return Relabeled(task=new_task, stop_reasoning=reasoning, phrases=phrases)
