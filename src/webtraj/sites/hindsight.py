"""What a reached sandbox state asks for, in hindsight: the oracle's reading of the pages an
episode went through, turned into the typed constraints of a task that the state satisfies.

A results page names a search (place, dates, the filters set away from the site's defaults);
a listing or review page names one listing chosen from such a search (`made_selection`),
with the filters of the search that led to it that the listing still meets, and on a review
page the choices made there (room, fare, seat, extras). Values the page shows only because
they are the listing's attributes (its price, its stars, its name) are not asked for unless
the search asked for them. Everything here is read from `PageState`s (the oracle's view), so
the oracle can check every constraint it writes."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType
from webtraj.sites.common.state import PageState
from webtraj.sites.oracle import matches

LABELED_PAGES = frozenset({"results", "listing", "review"})
PLACES = ("location", "origin", "destination")
# A search's own values: asked for whenever the page shows them.
CORE = (*PLACES, "start_date", "end_date", "departure_date", "return_date", "travel_date",
        "pickup_date", "dropoff_date")
# What a form starts with (site -> value, or one value for every site): a value left at its
# default was not chosen, so it is not asked for.
DEFAULTS: dict[str, JsonValue | dict[str, JsonValue]] = {
    "adults": {"hotels": 2, "rentals": 1}, "children": 0, "rooms": 1, "pets": 0,
    "passengers": 1, "driver_age": 30, "pickup_time": "10:00", "dropoff_time": "10:00",
    "cabin_class": "economy", "trip_type": "round_trip", "seat": "any",
    "fare_class": "standard",
}
# Never asked for: derived from other values (guests), a listing's own name, the order of a
# results list.
IGNORED = frozenset({"guests", "hotel", "car", "listing", "operator", "sort"})
# Chosen on a review page, not in the search.
REVIEW_CHOICES = frozenset({"room_type", "fare_class", "seat", "child_seat", "gps",
                            "additional_driver", "full_protection"})


def constraint_type(name: str, value: JsonValue) -> ConstraintType:
    if name in PLACES:
        return ConstraintType.LOCATION
    if name.endswith("_date"):
        return ConstraintType.DATE
    if isinstance(value, bool):
        return ConstraintType.BOOLEAN
    if isinstance(value, int | float):
        return ConstraintType.NUMBER
    return ConstraintType.ENUM


def _default(site: str, name: str) -> JsonValue:
    d = DEFAULTS.get(name)
    return d.get(site) if isinstance(d, dict) else d


def _chosen(site: str, name: str, value: JsonValue) -> bool:
    """A value the person set: not empty, not a false flag, not the form's default."""
    if name in IGNORED or name == MADE_SELECTION or value is None or value is False:
        return False
    return name in CORE or value != _default(site, name)


def _constraint(name: str, value: JsonValue) -> Constraint:
    assert isinstance(value, str | int | float | bool)
    return Constraint(name=name, value=value, type=constraint_type(name, value))


def hindsight_constraints(states: Sequence[PageState]) -> tuple[Constraint, ...] | None:
    """The constraints the last of `states` satisfies, read as a sub-task; None when it is no
    page a task could end on (home, error, other)."""
    if not states or states[-1].page not in LABELED_PAGES:
        return None
    last = states[-1]
    site = last.site
    if last.page == "results":
        return tuple(_constraint(n, v) for n, v in last.values.items() if _chosen(site, n, v))
    # A listing or a review: the search that led to it, as far as the listing meets it.
    search = next((s for s in reversed(states[:-1])
                   if s.site == site and s.page == "results"), None)
    out: dict[str, Constraint] = {}
    for n in CORE:
        v = last.values.get(n)
        if v is not None:
            out[n] = _constraint(n, v)
    if search is not None:
        for n, v in search.values.items():
            if n in out or not _chosen(site, n, v) or n not in last.values:
                continue
            c = _constraint(n, v)
            if matches(c, last.values[n]):
                out[n] = c
    for n, v in last.values.items():
        counted = isinstance(v, int) and not isinstance(v, bool)
        if n not in out and _chosen(site, n, v) and (
                counted and _default(site, n) is not None
                or (last.page == "review" and n in REVIEW_CHOICES)):
            out[n] = _constraint(n, v)
    out[MADE_SELECTION] = Constraint(name=MADE_SELECTION, value=True,
                                     type=ConstraintType.BOOLEAN)
    return tuple(out.values())
