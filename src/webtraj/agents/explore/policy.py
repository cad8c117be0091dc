"""The persona explorer: browses like a person with a purpose, without a model.

It fills the site's search form with values read from the page (a place from the
suggestions that typing a few letters brings up, or from a picker's list; a drop-down's own
options; dates in the form the field's placeholder shows, around the sandbox's date; party
sizes from the persona), searches, then looks around as long as the persona's patience lasts:
sets filters it likes, changes a drop-down, opens a result, picks a room or fare, goes back.
Every choice is drawn from one generator seeded by the episode's seed, so the same seed on
the same site gives the same episode. It acts on elements by role and name (not by ids), so
what it did replays on a fresh page load. It never presses a control that pays or books."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Generator, Sequence

from webtraj.agents.explore.page import (
    CONSENT,
    DATE_WORDS,
    PICK_WORDS,
    PLACE_WORDS,
    allowed,
    click,
    detail_link,
    elements,
    inside,
    is_date_field,
    page_state,
    popup_options,
    select,
    select_options,
    type_into,
)
from webtraj.agents.explore.personas import PERSONAS
from webtraj.agents.explore.prune import Pruner
from webtraj.agents.heuristic import SUBMIT_WORDS
from webtraj.agents.protocol import AgentDecision
from webtraj.dom.tree_text import PageElement, parse_tree
from webtraj.model.action import Action, ActionKind
from webtraj.model.constraint_values import fold, parse_date
from webtraj.model.exploration import Exploration
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step

# (action, why); the generator is sent the next observation.
Move = tuple[Action, str]
Script = Generator[Move, Observation, None]
PARTY = {"solo": (1, 0), "couple": (2, 0), "family": (2, 2), "group": (4, 0)}
BUDGET = {"low": 150, "mid": 300, "high": 700}


def exploration_of(task: Task) -> Exploration:
    """The task's exploration, or a default one (seed 0, the first persona)."""
    return Exploration.of(task) or Exploration(persona=PERSONAS[0], seed=0)


class PersonaExplorer:
    name = "explore-persona"

    def __init__(self, interval: int = 3, patience: int = 2) -> None:
        self.interval, self.patience = interval, patience
        self._script: Script | None = None
        self._pruner = Pruner(interval, patience)

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        move: Move | None
        if not history or self._script is None:
            ex = exploration_of(task)
            self._pruner = Pruner(self.interval, self.patience)
            self._script = _browse(ex, random.Random(f"{ex.seed}:{task.task_id}"), observation)
            move = next(self._script, None)
        else:
            try:
                move = self._script.send(observation)
            except StopIteration:
                move = None
        self._pruner.observe(observation)
        if self._pruner.should_stop(sum(1 for s in history if s.action is not None)):
            return _stop("No new sub-task in the last checks: stop exploring (pruned).")
        if move is None:
            return _stop("I have seen what I wanted to see.")
        return AgentDecision(action=move[0], reasoning=move[1])


def _stop(why: str) -> AgentDecision:
    return AgentDecision(action=Action(kind=ActionKind.STOP, value=""), reasoning=why)


def _browse(ex: Exploration, rng: random.Random, obs: Observation) -> Script:
    persona = ex.persona
    today = dt.date.fromisoformat(ex.today) if ex.today else dt.date.today()
    els = elements(obs)
    consent = [e for e in els if e.role == "button" and CONSENT.match(fold(e.name))]
    if consent:
        obs = yield click(rng.choice(consent), els), "Deal with the cookie banner first."
    obs = yield from _fill_form(persona, rng, today, obs)
    els = elements(obs)
    form = inside(els, "search")
    submit = [e for e in els if e.role == "button" and SUBMIT_WORDS.match(fold(e.name))
              and e.line in form and allowed(e)]
    if not submit:
        return
    obs = yield click(submit[0], els), "The form is filled as I want it: search."
    for _ in range(persona.patience):
        move = _look_around(persona, rng, obs)
        if move is None:
            return
        obs = yield move


def _fill_form(persona, rng: random.Random, today: dt.date, obs: Observation
               ) -> Generator[Move, Observation, Observation]:
    """Fill each field of the search form in page order; returns the last observation."""
    els = elements(obs)
    form = inside(els, "search")
    fields = [(e.role, e.name) for e in els if e.line in form]
    start: dt.date | None = None
    adults, children = PARTY[persona.party]
    for role, name in fields:
        els = elements(obs)
        e = next((x for x in els if x.role == role and x.name == name), None)
        if e is None or not allowed(e):
            continue
        low = fold(e.name)
        if is_date_field(e):
            if start is None:
                start = today + dt.timedelta(days=rng.randint(20, 100))
                day = start
            else:
                day = start + dt.timedelta(days=rng.randint(2, 7))
            obs = yield type_into(e, els, day.strftime("%B %d, %Y")), f"Enter {day:%B %d}."
        elif role in ("combobox", "textbox", "searchbox") and select_options(e, els):
            options = select_options(e, els)
            if rng.random() < 0.4:
                label = _liked(persona, options, rng)
                if label != e.value:
                    obs = yield select(e, els, label), f"Choose {label} for {e.name}."
        elif role in ("combobox", "textbox", "searchbox") and PLACE_WORDS.search(low):
            obs = yield from _place(rng, obs, e)
        elif role == "button" and DATE_WORDS.search(low):
            obs = yield from _calendar(rng, obs, e, today)
        elif role == "button" and PLACE_WORDS.search(low) and "choose" in low:
            obs = yield click(e, els), f"Open the {e.name.split()[0]} list."
            opts = popup_options(elements(obs))
            if opts:
                pick = rng.choice(opts)
                obs = yield click(pick, elements(obs)), f"Pick {pick.name}."
        elif role == "spinbutton":
            want = _count(low, adults, children, persona)
            if want is not None and str(want) != (e.value or ""):
                obs = yield type_into(e, els, str(want)), f"Set {e.name} to {want}."
        elif role == "radio" and not e.has("checked") and rng.random() < 0.25:
            obs = yield click(e, els), f"Choose {e.name}."
    return obs


# How city names often begin: what a person starts typing when no place is listed.
CITY_STARTS = ("Sa", "Ma", "Ba", "Lo", "Pa", "Ne", "Ch", "Be", "Mi", "Ro", "Am", "Da", "Bo",
               "Se", "Ve", "Li", "To", "De", "Au", "Va")
PLACE_HEADINGS = re.compile(r"destination|route|trip|inspiration|cit(y|ies)|popular places")


def _place(rng: random.Random, obs: Observation, field: PageElement
           ) -> Generator[Move, Observation, Observation]:
    """Type the start of a place name, then take one of the suggestions the site offers."""
    els = elements(obs)
    shown = _places_shown(obs)
    starts = [p[:2] for p in shown] + list(CITY_STARTS)
    for _ in range(3):
        prefix = rng.choice(starts)
        obs = yield (type_into(field, els, prefix),
                     f"Type '{prefix}' into {field.name} to see suggestions.")
        els = elements(obs)
        opts = popup_options(els)
        if opts:
            pick = rng.choice(opts)
            obs = yield click(pick, els), f"Take the suggestion {pick.name}."
            return obs
        field = next((x for x in els if x.role == field.role and x.name == field.name), field)
    if shown:
        place = rng.choice(shown)
        obs = yield type_into(field, els, place), f"No suggestion came up; type {place}."
    return obs


def _places_shown(obs: Observation) -> list[str]:
    """Place names the page lists under a heading about places (trending destinations,
    popular routes)."""
    out: list[str] = []
    under = False
    for e in parse_tree(obs.axtree):
        if e.role == "heading":
            under = bool(PLACE_HEADINGS.search(fold(e.name)))
        elif under and e.role in ("strong", "listitem", "StaticText") and e.name and not any(
                c.isdigit() for c in e.name):
            out.extend(p.strip() for p in re.split(r"[→,]", e.name) if p.strip())
    return [p for p in dict.fromkeys(out) if 2 < len(p) < 30]


def _calendar(rng: random.Random, obs: Observation, opener: PageElement, today: dt.date
              ) -> Generator[Move, Observation, Observation]:
    """A date-range picker: open it, move on a month or two, pick a day and a later one."""
    obs = yield click(opener, elements(obs)), "Open the calendar."
    for _ in range(rng.randint(1, 2)):
        els = elements(obs)
        nxt = next((e for e in els if e.role == "button" and fold(e.name) == "next month"), None)
        if nxt is None:
            break
        obs = yield click(nxt, els), "Look at a later month."
    first: dt.date | None = None
    for _ in range(2):
        els = elements(obs)
        days = [(d, e) for e in els if e.role == "button" and allowed(e)
                and (d := _day(e.name)) is not None and d > today
                and (first is None or first < d <= first + dt.timedelta(days=7))]
        if not days:
            break
        day, e = (rng.choice(days[:20]) if first is None else
                  rng.choice(days[1:6] or days))
        first = first or day
        obs = yield click(e, els), f"Pick {day:%B %d}."
    els = elements(obs)
    done = next((e for e in els if e.role == "button" and fold(e.name) in ("done", "apply")),
                None)
    if done is not None:
        obs = yield click(done, els), "Close the calendar."
    return obs


def _day(name: str) -> dt.date | None:
    if not (re.search(r"\d", name) and re.search(r"[A-Za-z]{3}", name) and len(name) < 40):
        return None
    return parse_date(name)


def _count(name: str, adults: int, children: int, persona) -> int | None:
    if "adult" in name:
        return adults
    if "child" in name:
        return children
    if "passenger" in name or "traveller" in name or "traveler" in name:
        return adults + children
    if "pet" in name:
        return 1 if any("pet" in w for w in persona.likes) else None
    return None


def _liked(persona, labels: Sequence[str], rng: random.Random) -> str:
    liked = [x for x in labels if any(w in fold(x) for w in persona.likes)]
    return rng.choice(liked or list(labels))


def _look_around(persona, rng: random.Random, obs: Observation) -> Move | None:
    """One thing a person does on a results, listing or review page."""
    els = elements(obs)
    state = page_state(obs)
    page = state.page if state is not None else "other"
    form = inside(els, "search")
    moves: list[tuple[float, Move]] = []
    back = (Action(kind=ActionKind.GO_BACK), "Go back to what I saw before.")
    if page in ("error", "other", "home"):
        return back if page == "error" else None
    for e in els:
        if e.line in form or not allowed(e):
            continue
        low = fold(e.name)
        liked = any(w in low for w in persona.likes)
        if page == "results" and e.role in ("checkbox", "switch"):
            moves.append((3.0 if liked else 0.7, (click(e, els), f"Filter: {e.name}.")))
        elif page == "results" and e.role == "radio" and not e.has("checked"):
            moves.append((2.0 if liked else 0.5, (click(e, els), f"Filter: {e.name}.")))
        elif e.role == "combobox" and select_options(e, els) and page == "results":
            options = [o for o in select_options(e, els) if o != e.value]
            if options:
                label = _liked(persona, options, rng)
                moves.append((0.8, (select(e, els, label), f"Change {e.name} to {label}.")))
        elif page == "results" and e.role == "spinbutton" and "price" in low:
            price = str(BUDGET[persona.budget])
            moves.append((1.0 if persona.budget == "low" else 0.3,
                          (type_into(e, els, price), f"Keep the price under {price}.")))
        elif page == "results" and e.role == "button" and low.startswith("apply") and any(
                x.role == "spinbutton" and x.value for x in els):
            moves.append((2.0, (click(e, els), f"{e.name}.")))
        elif page == "results" and detail_link(e, obs.url):
            moves.append((1.5, (click(e, els), f"Open {e.name} to see the details.")))
        elif page == "listing" and e.role in ("button", "link", "radio") and PICK_WORDS.match(
                low):
            moves.append((1.5, (click(e, els), f"{e.name}: this one suits me.")))
    if page in ("listing", "review") or rng.random() < 0.3:
        moves.append((1.0, back))
    if not moves:
        return None
    weights = [w for w, _ in moves]
    return rng.choices([m for _, m in moves], weights=weights)[0]
