"""A baseline that needs no model: it reads the task's constraints, finds the matching fields
and filters by role and accessible name, fills them, searches, applies filters, opens a
listing and stops. It never looks at reference actions.

It is deliberately generic (synonyms for field names, typed values, calendars with month
navigation, pickers, steppers, filter checkboxes), so its CSR says something about how
agent-friendly a site is; it is not tuned to the sandbox's exact wording."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from webtraj.agents.protocol import AgentDecision
from webtraj.dom.tree_text import PageElement, parse_tree
from webtraj.model.action import Action, ActionKind
from webtraj.model.constraint_values import fold, location_matches, parse_date
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Task
from webtraj.model.trajectory import Observation, Step

INPUT_ROLES = frozenset({"textbox", "combobox", "searchbox", "spinbutton"})
CHOICE_ROLES = ("radio", "checkbox", "switch", "option", "menuitemradio", "tab", "button",
                "link")
# Words that name a field for a constraint, most specific first.
FIELD_WORDS: dict[str, tuple[str, ...]] = {
    "location": ("pick-up location", "pickup location", "where are you going", "destination",
                 "location", "where", "city"),
    "origin": ("where from", "leaving from", "from", "origin"),
    "destination": ("where to", "going to", "to", "destination"),
    "start_date": ("check-in", "check in", "checkin", "dates", "start date", "arrival"),
    "end_date": ("check-out", "check out", "checkout", "dates", "end date"),
    "departure_date": ("departure date", "depart", "outbound"),
    "return_date": ("return date", "return"),
    "travel_date": ("travel date", "date"),
    "pickup_date": ("pick-up date", "pickup date"),
    "dropoff_date": ("drop-off date", "dropoff date"),
    "pickup_time": ("pick-up time", "pickup time"),
    "dropoff_time": ("drop-off time", "dropoff time"),
    "passengers": ("passengers", "travellers", "travelers"),
    "driver_age": ("driver age", "driver's age", "age"),
    "min_bedrooms": ("bedrooms",),
    "max_price": ("max price", "maximum price", "price up to", "budget"),
    "depart_after": ("depart after", "departing after", "leaving after", "departure after"),
    "min_stars": ("stars", "star rating"),
    "max_stops": ("stops",),
}
# Controls that must never be pressed: they spend money or change the user's state.
FORBIDDEN = re.compile(r"\b(pay|buy|purchase|book now|request to book|confirm|complete)\b")
SELECT_WORDS = re.compile(r"^(view deal|view|select|choose|see|show details|details|reserve|"
                          r"continue|open)\b")
SUBMIT_WORDS = re.compile(r"^(search|find|show results|go|apply|update)\b")
CONSENT = re.compile(r"^(accept|agree|allow|ok|got it)\b")
CALENDAR_NEXT = re.compile(r"^(next month|next|›|→|>)$")
CALENDAR_DONE = re.compile(r"^(done|apply|close|ok)$")
MAX_TRIES = 3
# Counts usually set with +/- steppers.
STEPPED = frozenset({"adult", "child", "pet", "room", "passenger", "guest", "traveler",
                     "traveller", "infant"})


@dataclass
class _Episode:
    done: set[str] = field(default_factory=set)
    tries: dict[str, int] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)  # constraint -> field id typed into
    consent: bool = False
    submitted: int = 0
    selections: int = 0
    calendar_moves: int = 0
    calendar_used: bool = False
    steps: int = 0  # stepper clicks and popover openings
    counts: dict[str, int | None] = field(default_factory=dict)


def _words(name: str) -> str:
    return fold(name.replace("_", " "))


def _has(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", text) is not None


def _field_words(c: Constraint) -> tuple[str, ...]:
    return FIELD_WORDS.get(c.name, ()) + (_words(c.name),)


def _value_text(c: Constraint) -> str:
    v = c.value
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


class HeuristicAgent:
    name = "heuristic"

    def __init__(self) -> None:
        self._ep = _Episode()

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        if not history:
            self._ep = _Episode()
        els = [e for e in parse_tree(observation.axtree) if e.id]
        decision = self._next(task, observation, els)
        return decision or AgentDecision(action=Action(kind=ActionKind.STOP, value=""),
                                         reasoning="Every constraint I can act on is handled.")

    # --- planning -----------------------------------------------------------------------
    def _next(self, task: Task, obs: Observation, els: list[PageElement]
              ) -> AgentDecision | None:
        ep = self._ep
        if not ep.consent:
            ep.consent = True
            btn = next((e for e in els if e.role == "button" and CONSENT.match(fold(e.name))),
                       None)
            if btn:
                return _click(btn, "Dismiss the cookie banner first.")
        pending = [c for c in task.constraints
                   if c.name != MADE_SELECTION and c.name not in ep.done]
        if ep.calendar_used and not any(c.type is ConstraintType.DATE for c in pending):
            # Every date is picked: close the date picker before touching anything else.
            ep.calendar_used = False
            done_btn = next((e for e in els if e.role == "button"
                             and CALENDAR_DONE.match(fold(e.name))), None)
            if done_btn:
                return _click(done_btn, "Both dates are picked; close the date picker.")
        for c in pending:
            if ep.tries.get(c.name, 0) >= MAX_TRIES:
                continue
            decision = self._for_constraint(c, els)
            if decision is not None:
                ep.tries[c.name] = ep.tries.get(c.name, 0) + 1
                return decision
        if ep.calendar_used:
            ep.calendar_used = False
            done_btn = next((e for e in els if e.role == "button"
                             and CALENDAR_DONE.match(fold(e.name))), None)
            if done_btn:
                return _click(done_btn, "Close the date picker.")
        if ep.submitted < 1:
            btn = _submit_button(els)
            if btn:
                ep.submitted += 1
                ep.tries.clear()  # filters appear on the results page: try again there
                return _click(btn, "The search form is filled; search.")
        wants_selection = any(c.name == MADE_SELECTION and c.value is True
                              for c in task.constraints)
        if wants_selection and ep.selections < 4:
            target = _selection_target(els, obs.url)
            if target:
                ep.selections += 1
                ep.tries.clear()  # options such as extras live on the listing page
                return _click(target, "Open the best matching option.")
        return None

    def _for_constraint(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        ep = self._ep
        if c.type is ConstraintType.DATE:
            return self._date(c, els)
        if c.name in ep.typed:
            # Typed into an autocomplete last time: pick the suggestion if one shows.
            opt = _best_option(c, els)
            ep.done.add(c.name)
            if opt:
                return _click(opt, f"Pick the suggestion for {c.name}.")
        if c.type is ConstraintType.BOOLEAN:
            return self._toggle(c, els)
        if c.type in (ConstraintType.LOCATION, ConstraintType.TEXT) and c.name not in (
                "depart_after", "pickup_time", "dropoff_time"):
            return self._text(c, els)
        return self._choice(c, els)

    def _text(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        value = _value_text(c)
        fld = _find_field(c, els, INPUT_ROLES - {"spinbutton"})
        if fld is not None:
            if fld.value and (fold(fld.value) == fold(value)
                              or location_matches(value, fld.value)):
                self._ep.done.add(c.name)
                return None
            self._ep.typed[c.name] = fld.id
            return _act("type", fld, value, f"Enter the {_words(c.name)}: {value}.",
                        enter=False)
        picker = _find_field(c, els, {"button"}, prefix=True)
        if picker is not None:
            self._ep.typed[c.name] = picker.id
            return _click(picker, f"Open the {_words(c.name)} picker.")
        opt = _best_option(c, els)
        if opt is not None:
            self._ep.done.add(c.name)
            return _click(opt, f"Choose {value}.")
        return None

    def _date(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        ep = self._ep
        want = parse_date(c.value)
        if want is None:
            ep.done.add(c.name)
            return None
        day = next((e for e in els if e.role in ("button", "gridcell", "option")
                    and _looks_like_date(e.name) and parse_date(e.name) == want
                    and not e.has("disabled")), None)
        if day is not None:
            ep.done.add(c.name)
            ep.calendar_used = True
            return _click(day, f"Pick {c.value} in the calendar.")
        fld = _find_field(c, els, {"textbox", "searchbox", "combobox"})
        if fld is not None and "date" in fld.props.get("type", "date"):
            current = parse_date(fld.value) if fld.value else None
            ep.done.add(c.name)
            if current == want:
                return None
            return _act("type", fld, want.strftime("%B %d, %Y"),
                        f"Enter the {_words(c.name)}.", enter=False)
        nxt = next((e for e in els if e.role == "button" and CALENDAR_NEXT.match(fold(e.name))),
                   None)
        if nxt is not None and ep.calendar_moves < 12:
            ep.calendar_moves += 1
            ep.tries[c.name] = ep.tries.get(c.name, 0) - 1  # moving months is not a try
            return _click(nxt, f"{c.value} is not shown yet; go to the next month.")
        picker = _find_field(c, els, {"button"}, prefix=True)
        if picker is not None:
            return _click(picker, "Open the date picker.")
        return None

    def _toggle(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        words = _words(c.name)
        for role in ("checkbox", "switch", "button", "radio", "option", "link"):
            for e in els:
                if e.role != role or not _has(fold(e.name), words) or FORBIDDEN.search(
                        fold(e.name)):
                    continue
                on = e.has("checked") or e.has("pressed") or e.has("selected")
                self._ep.done.add(c.name)
                if on is bool(c.value):
                    return None
                return _click(e, f"Set '{e.name}' for {words}.")
        return None

    def _stepper(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        """Counts set with +/- buttons (often inside a "Guests and rooms" popover): read the
        current count from text like "2 adults", then step towards the target."""
        ep = self._ep
        stem = _stem(c.name)
        try:
            want = int(float(c.value))
        except (TypeError, ValueError):
            return None
        plus = minus = None
        for e in els:
            name = fold(e.name)
            if e.role != "button" or stem not in name:
                continue
            if re.match(r"^(increase|add|more|plus|\+)", name):
                plus = e
            elif re.match(r"^(decrease|remove|fewer|less|minus|-|−)", name):
                minus = e
        if plus is None and minus is None:
            opener = next((e for e in els if e.role == "button" and stem in fold(e.name)
                           and not e.has("expanded")), None)
            if opener is not None and ep.steps < 12:
                ep.steps += 1
                return _click(opener, f"Open the {_words(c.name)} selector.")
            return None
        # Read the count once when the stepper shows up, then keep it ourselves: many widgets
        # only refresh their summary text when the popover closes.
        if c.name not in ep.counts:
            ep.counts[c.name] = _count_in_page(stem, els)
        current = ep.counts[c.name]
        if current == want or ep.steps >= 12:
            ep.done.add(c.name)
            return None
        ep.steps += 1
        ep.tries[c.name] = ep.tries.get(c.name, 0) - 1  # a step of the stepper is not a try
        up = current is None or current < want
        target = plus if up else minus
        if target is None or target.has("disabled"):
            ep.done.add(c.name)
            return None
        if current is not None:
            ep.counts[c.name] = current + (1 if up else -1)
        return _click(target, f"{_words(c.name)}: {current} -> {want}.")

    def _choice(self, c: Constraint, els: list[PageElement]) -> AgentDecision | None:
        value = _value_text(c)
        if c.type is ConstraintType.NUMBER and _stem(c.name) in STEPPED:
            fld = _find_field(c, els, {"spinbutton", "textbox"})
            if fld is None:
                return self._stepper(c, els)
        fld = _find_field(c, els, INPUT_ROLES)
        if fld is not None:
            options = _options_under(fld, els)
            if fld.role == "combobox" and options:
                label = _match_option(c, [o.name for o in options])
                if label is not None:
                    self._ep.done.add(c.name)
                    if options and any(o.name == label and o.has("selected") for o in options):
                        return None
                    return _act("select", fld, label, f"Choose {label} for {_words(c.name)}.")
            elif fld.role in ("spinbutton", "textbox", "searchbox", "combobox"):
                self._ep.done.add(c.name)
                if fld.value is not None and fold(fld.value) == fold(value):
                    return None
                return _act("type", fld, value, f"Set {_words(c.name)} to {value}.",
                            enter=False)
        opt = _best_option(c, els)
        if opt is not None:
            self._ep.done.add(c.name)
            if opt.has("checked") or opt.has("selected") or opt.has("pressed"):
                return None
            return _click(opt, f"Choose {opt.name} for {_words(c.name)}.")
        return None


# --- page helpers ---------------------------------------------------------------------------
def _act(kind: str, e: PageElement, value: str, why: str, *, enter: bool = True
         ) -> AgentDecision:
    press = enter if kind == "type" else True
    return AgentDecision(action=Action(kind=kind, element_id=e.id, value=value,
                                       press_enter=press), reasoning=why)


def _click(e: PageElement, why: str) -> AgentDecision:
    return AgentDecision(action=Action(kind=ActionKind.CLICK, element_id=e.id), reasoning=why)


def _looks_like_date(name: str) -> bool:
    return bool(re.search(r"\d", name)) and bool(re.search(r"[A-Za-z]{3}", name)) and len(
        name) < 40


def _find_field(c: Constraint, els: list[PageElement], roles, *, prefix: bool = False
                ) -> PageElement | None:
    """The input (or picker button) whose name matches the constraint's field words; the
    most specific word wins."""
    for word in _field_words(c):
        for e in els:
            if e.role not in roles:
                continue
            name = fold(e.name)
            hit = name.startswith(word) if prefix else _has(name, word)
            if hit and not FORBIDDEN.search(name):
                return e
    return None


def _options_under(fld: PageElement, els: list[PageElement]) -> list[PageElement]:
    start = next((i for i, e in enumerate(els) if e is fld), None)
    out = []
    for e in els[start + 1:] if start is not None else []:
        if e.depth <= fld.depth:
            break
        if e.role == "option":
            out.append(e)
    return out


def _variants(c: Constraint) -> list[str]:
    v = _value_text(c)
    out = [fold(v), _words(v), *(fold(a) for a in c.aliases)]
    if c.name == "max_stops":
        n = int(float(c.value)) if str(c.value).replace(".", "").isdigit() else None
        out = (["nonstop", "non-stop", "direct"] if n == 0 else
               [f"{n} stop", f"up to {n} stop", f"{n}+ stop"]) if n is not None else out
    if c.name == "min_stars":
        out += [f"{_value_text(c)} stars", f"{_value_text(c)}+ stars", f"{_value_text(c)} star"]
    return [o for o in dict.fromkeys(out) if o]


def _match_option(c: Constraint, labels: list[str]) -> str | None:
    variants = _variants(c)
    for v in variants:
        for label in labels:
            if fold(label) == v:
                return label
    for v in variants:
        for label in labels:
            if _has(fold(label), v):
                return label
    return None


def _stem(name: str) -> str:
    word = name.split("_")[-1].lower()
    return "child" if word == "children" else word.rstrip("s")


def _count_in_page(stem: str, els: list[PageElement]) -> int | None:
    """A count written next to its noun ("2 adults", "1 room"), or a spinbutton's value."""
    for e in els:
        if e.role == "spinbutton" and stem in fold(e.name) and e.value and e.value.isdigit():
            return int(e.value)
    for e in els:
        m = re.search(rf"(\d+)\s+{re.escape(stem)}", fold(e.name))
        if m:
            return int(m.group(1))
    return None


def _best_option(c: Constraint, els: list[PageElement]) -> PageElement | None:
    if c.type is ConstraintType.LOCATION:
        for e in els:
            if e.role == "option" and location_matches(_value_text(c), e.name):
                return e
    exact_only = c.type is ConstraintType.NUMBER and c.name not in ("min_stars", "max_stops")
    for role in CHOICE_ROLES:
        group = [e for e in els if e.role == role and not FORBIDDEN.search(fold(e.name))]
        if exact_only:
            # A number inside a longer label ("2 adults · 1 room") is not an option for it.
            label = next((e.name for e in group if fold(e.name) in _variants(c)), None)
        else:
            label = _match_option(c, [e.name for e in group])
        if label is not None:
            return next(e for e in group if e.name == label)
    return None


def _submit_button(els: list[PageElement]) -> PageElement | None:
    return next((e for e in els if e.role == "button" and SUBMIT_WORDS.match(fold(e.name))),
                None)


def _detail_like(url: str, here: str) -> bool:
    path = urlsplit(url).path
    return path != urlsplit(here).path and any(
        re.fullmatch(r"[a-z]{0,3}\d+", seg) for seg in path.split("/") if seg)


def _selection_target(els: list[PageElement], here: str) -> PageElement | None:
    for e in els:
        if e.role == "link" and _detail_like(e.props.get("url", ""), here):
            return e
    for e in els:
        name = fold(e.name)
        if e.role in ("button", "link", "radio") and SELECT_WORDS.match(name) and not (
                FORBIDDEN.search(name)):
            return e
    return None
