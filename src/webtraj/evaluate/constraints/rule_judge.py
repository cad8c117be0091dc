"""The `rule` judge: reads each constraint's value off the page with typed normalization.

Sources, most trusted first: structured data on the page (JSON-LD), the URL (query and
path), then visible text. A value counts as met only if it is explicitly shown (the
constraint-based evaluation paper);
what no source shows is unmet, with the reason. It needs no model and works on any site; it
is best on sites that keep their state in URLs or structured data.

`sources` limits what it reads (e.g. `("url", "text")`), which is how to measure it on the
sandbox sites without their machine-readable page state."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webtraj.evaluate.constraints.csr import ObservationCSR
from webtraj.evaluate.constraints.page_evidence import Evidence, evidence, key_form
from webtraj.model.constraint_values import (
    fold,
    parse_bool,
    parse_date,
    parse_number,
    values_match,
)
from webtraj.model.score import ConstraintCheck
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Task
from webtraj.model.trajectory import Observation, Trajectory

# Query/data keys (in key_form) that carry a constraint, besides the constraint's own name.
KEY_SYNONYMS: dict[str, tuple[str, ...]] = {
    "location": ("destination", "dest", "location", "city", "where", "place", "q"),
    "origin": ("from", "origin", "departurecity", "fromcity"),
    "destination": ("to", "destination", "arrivalcity", "tocity"),
    "start_date": ("checkin", "start", "startdate", "arrival"),
    "end_date": ("checkout", "end", "enddate"),
    "departure_date": ("depart", "departure", "departuredate", "outbound", "date"),
    "return_date": ("return", "returndate", "inbound"),
    "travel_date": ("date", "traveldate", "depart"),
    "pickup_date": ("pickup", "pickupdate", "from"),
    "dropoff_date": ("dropoff", "dropoffdate"),
    "pickup_time": ("pickuptime", "ptime"),
    "dropoff_time": ("dropofftime", "dtime"),
    "passengers": ("passengers", "pax", "travelers", "travellers"),
    "cabin_class": ("cabin", "cabinclass", "class"),
    "max_stops": ("stops", "maxstops"),
    "min_stars": ("stars", "minstars", "rating"),
    "max_price": ("maxprice", "pricemax", "price", "budget"),
    "depart_after": ("after", "departafter"),
    "property_type": ("propertytype", "type"),
    "min_bedrooms": ("bedrooms", "minbedrooms"),
    "car_type": ("cartype", "category", "type"),
    "driver_age": ("age", "driverage"),
}
DETAIL_TYPES = frozenset({"hotel", "lodgingbusiness", "product", "offer", "vacationrental",
                          "accommodation", "flight", "trip", "busorcoach", "car", "vehicle",
                          "rentalcar", "reservation"})
LIST_TYPES = frozenset({"itemlist", "searchresultspage", "collectionpage"})
_ID_SEGMENT = re.compile(r"[a-z]{0,3}\d+", re.IGNORECASE)
_SLUG_ID = re.compile(r"[a-z]+-\d+", re.IGNORECASE)
# Query keys that name one chosen item (a value with a digit is an item id).
SELECTION_KEYS = ("hotel", "car", "journey", "listing", "room", "item", "product", "property",
                  "flight", "offer", "out", "deal", "id")


def _keys(c: Constraint) -> tuple[str, ...]:
    return (key_form(c.name), *KEY_SYNONYMS.get(c.name, ()))


def _bound(c: Constraint) -> str | None:
    n = c.name
    if n.startswith("min_") or n.endswith("_after"):
        return "min"
    if n.startswith("max_") or n.endswith("_before"):
        return "max"
    return None


def _compare_bound(kind: str, expected: Any, observed: Any) -> bool:
    if isinstance(expected, str) and re.fullmatch(r"\d{1,2}:\d{2}", expected.strip()):
        m = re.search(r"\d{1,2}:\d{2}", str(observed))
        if not m:
            return False
        a, b = m.group(0).zfill(5), expected.strip().zfill(5)
        return a >= b if kind == "min" else a <= b
    a, b = parse_number(observed), parse_number(expected)
    if a is None or b is None:
        return False
    return a >= b if kind == "min" else a <= b


class RuleJudge:

    def __init__(self, sources: Sequence[str] = ("data", "url", "text")) -> None:
        self.sources = tuple(sources)
        # Scores of a restricted judge are kept apart from the default one's.
        default = set(self.sources) == {"data", "url", "text"}
        self.name = "rule" if default else f"rule[{'+'.join(self.sources)}]"

    async def judge(self, task: Task, observations: Sequence[Observation],
                    trajectory: Trajectory, artifacts: Path | None) -> list[ObservationCSR]:
        return [ObservationCSR(self.check(task, obs)) for obs in observations]

    def check(self, task: Task, obs: Observation) -> list[ConstraintCheck]:
        ev = evidence(obs, use_data="data" in self.sources)
        return [self._one(c, ev) for c in task.constraints]

    # --- one constraint -----------------------------------------------------------------
    def _one(self, c: Constraint, ev: Evidence) -> ConstraintCheck:
        error = self._error_page(ev)
        if error:
            # A page that rejects the request commits to no state at all.
            return ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=None,
                                   matching=False, reason=f"error page: {error}")
        if c.name == MADE_SELECTION:
            shown = self._selection(ev)
            return ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=shown,
                                   matching=shown is bool(c.value))
        observed, where = self._keyed(c, ev)
        if where is None and "text" in self.sources:
            observed = self._from_text(c, ev)
            where = "text" if observed is not None else None
        if observed is None:
            why = f"shown as empty in {where}" if where else "not shown in URL, data or text"
            return ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=None,
                                   matching=False, reason=why)
        bound = _bound(c)
        ok = _compare_bound(bound, c.value, observed) if bound else values_match(c, observed)
        return ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=_json(observed),
                               matching=ok, reason=f"read from {where}")

    def _error_page(self, ev: Evidence) -> str | None:
        if "data" not in self.sources:
            return None
        errors = [e for e in ev.data.get("error", []) if isinstance(e, str) and e.strip()]
        if errors:
            return errors[0]
        if any(fold(str(p)) == "error" for p in ev.data.get("page", [])):
            return "the page says it is an error page"
        return None

    def _keyed(self, c: Constraint, ev: Evidence) -> tuple[Any, str | None]:
        """The value under a matching key, and where it was found. Structured data that
        has the key but no value is an answer too: the page says nothing is set."""
        for source, table in (("data", ev.data), ("url", ev.params)):
            if source not in self.sources:
                continue
            for key in _keys(c):
                if key not in table:
                    continue
                values = [v for v in table[key] if v not in (None, "")]
                if not values:
                    if source == "data":
                        return None, source
                    continue
                if c.type is ConstraintType.BOOLEAN:
                    return any(parse_bool(v) for v in values), source
                return values[0], source
            if c.type is ConstraintType.BOOLEAN and source == "url":
                # Amenity lists: ?amenities=pool,spa or repeated ?amenity=pool
                words = {key_form(c.name)}
                for key in ("amenities", "amenity", "features", "filters", "extras"):
                    for v in table.get(key, []):
                        if words & {key_form(x) for x in re.split(r"[,|\s]+", str(v))}:
                            return True, source
        if "data" in self.sources and ev.states_values:
            return None, "data"
        return None, None

    def _from_text(self, c: Constraint, ev: Evidence) -> Any:
        if c.type is ConstraintType.BOOLEAN:
            words = _plain(c.name)
            for role, name, props in ev.lines:
                if words in _plain(name) and role in ("checkbox", "switch", "radio"):
                    return "checked" in props or "pressed" in props
            # No control for it: a feature listed on its own line (a listing's amenities).
            if any(_plain(name) == words for _, name, _ in ev.lines):
                return True
            return None
        if c.type is ConstraintType.DATE:
            want = parse_date(c.value)
            for _, name, _ in ev.lines:
                if want and re.search(r"\d", name) and len(name) < 80 and parse_date(
                        _date_part(name) or "") == want:
                    return name
            return None
        if c.type is ConstraintType.NUMBER:
            words = fold(c.name.replace("_", " ")).split()
            for m in re.finditer(r"(\d+)\s+([a-z]+)", ev.text):
                if m.group(2).rstrip("s") in {w.rstrip("s") for w in words}:
                    return m.group(1)
            return None
        for variant in (c.value, *c.aliases):
            v = fold(str(variant).replace("_", " "))
            if v and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", ev.text):
                return str(variant)
        return None

    def _selection(self, ev: Evidence) -> bool:
        if "data" in self.sources:
            flag = ev.data.get("madeselection")
            if flag:
                return bool(parse_bool(flag[0]))
            page = [fold(str(p)) for p in ev.data.get("page", [])]
            if page:
                return page[0] in ("listing", "detail", "item", "product")
            if ev.data_types & LIST_TYPES:
                return False
            if ev.data_types & DETAIL_TYPES:
                return True
        # Without structured data: an item id in the path (/hotel/h12, /journey/parbru-05)
        # or an item named in the query (?car=c5005, ?out=AT3419).
        if any(_ID_SEGMENT.fullmatch(s) or _SLUG_ID.fullmatch(s) for s in ev.path):
            return True
        return any(re.search(r"\d", v) for key in SELECTION_KEYS for v in ev.params.get(key, []))


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[_\-]+", " ", fold(text)).split())


def _date_part(text: str) -> str | None:
    m = re.search(r"[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|\d{4}-\d{2}-\d{2}|\d{1,2} [A-Za-z]{3,9} \d{4}",
                  text)
    return m.group(0) if m else None


def _json(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)
