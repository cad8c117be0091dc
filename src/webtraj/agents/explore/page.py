"""Reading a page for an explorer: its elements, the form it offers, and the state it
publishes (the sandbox sites publish `PageState` as JSON-LD, the oracle's own reading)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from webtraj.agents.heuristic import FORBIDDEN
from webtraj.dom.tree_text import PageElement, parse_tree
from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.constraint_values import fold
from webtraj.model.trajectory import Observation
from webtraj.sites.common.state import PageState

# Besides what spends money (the heuristic agent's FORBIDDEN), an explorer keeps away from
# the user's account.
ACCOUNT = re.compile(r"\b(sign in|log in|register|subscribe)\b")
# A cookie banner's answers: a person may accept or refuse.
CONSENT = re.compile(r"^(accept|agree|allow|reject|ok|got it)\b")
PLACE_WORDS = re.compile(r"\b(where|destination|location|from|to|city|going)\b")
DATE_WORDS = re.compile(r"\b(date|check in|check out|check-in|check-out|depart|return)\b")
PICK_WORDS = re.compile(r"^(reserve|select|choose|view deal|continue)\b")


def elements(obs: Observation) -> list[PageElement]:
    """Every element of the tree, with an id or not (a drop-down's options have none: they
    are chosen with `select`, and named by role and name as everything here is)."""
    return parse_tree(obs.axtree)


def target(e: PageElement, els: Sequence[PageElement]) -> ElementTarget:
    """Role, exact name and rank among its namesakes: the same element on a replay of the
    same page, whatever ids that page load gives (a task's reference actions name it so)."""
    nth = sum(1 for o in els if o.line < e.line and o.role == e.role and o.name == e.name)
    return ElementTarget(role=e.role, name=e.name, nth=nth)


def click(e: PageElement, els: Sequence[PageElement]) -> Action:
    return Action(kind=ActionKind.CLICK, target=target(e, els))


def type_into(e: PageElement, els: Sequence[PageElement], text: str) -> Action:
    return Action(kind=ActionKind.TYPE, target=target(e, els), value=text, press_enter=False)


def select(e: PageElement, els: Sequence[PageElement], label: str) -> Action:
    return Action(kind=ActionKind.SELECT, target=target(e, els), value=label)


def allowed(e: PageElement) -> bool:
    name = fold(e.name)
    return not FORBIDDEN.search(name) and not ACCOUNT.search(name) and not e.has("disabled")


def inside(els: Sequence[PageElement], role: str) -> set[int]:
    """Lines of the elements under any element of `role` (a form's fields)."""
    lines: set[int] = set()
    depth: int | None = None
    for e in els:
        if depth is not None and e.depth <= depth:
            depth = None
        if e.role == role:
            depth = e.depth
        elif depth is not None:
            lines.add(e.line)
    return lines


def select_options(field: PageElement, els: Sequence[PageElement]) -> list[str]:
    """The option labels of a drop-down (a combobox whose options sit under it)."""
    out: list[str] = []
    for e in parse_tree_after(field, els):
        if e.depth <= field.depth:
            break
        if e.role == "option":
            out.append(e.name)
    return out


def parse_tree_after(field: PageElement, els: Sequence[PageElement]) -> list[PageElement]:
    return [e for e in els if e.line > field.line]


def popup_options(els: Sequence[PageElement]) -> list[PageElement]:
    """Suggestions on show (autocomplete options, a picker's choices): options with ids that
    are not a drop-down's own."""
    owned: set[int] = set()
    for f in els:
        if f.role == "combobox":
            for o in parse_tree_after(f, els):
                if o.depth <= f.depth:
                    break
                owned.add(o.line)
    return [e for e in els if e.role in ("option", "menuitem", "menuitemradio")
            and e.line not in owned and allowed(e) and e.id]


def is_date_field(e: PageElement) -> bool:
    if e.role not in ("textbox", "searchbox", "combobox"):
        return False
    placeholder = fold(e.props.get("placeholder", ""))
    return bool(DATE_WORDS.search(fold(e.name))) or "add date" in placeholder or bool(
        re.search(r"\b(19|20)\d\d\b", placeholder))


def page_state(obs: Observation) -> PageState | None:
    """The state the page publishes (JSON-LD with site, page and values), if any."""
    for block in obs.structured_data:
        if isinstance(block, dict) and isinstance(block.get("page"), str) and isinstance(
                block.get("site"), str):
            values = block.get("values")
            listing = block.get("listing")
            error = block.get("error")
            return PageState(site=block["site"], page=block["page"],
                             values=values if isinstance(values, dict) else {},
                             listing=listing if isinstance(listing, str) else None,
                             error=error if isinstance(error, str) else None)
    return None


def detail_link(e: PageElement, here: str) -> bool:
    """A link to one listing's page (a path segment that is an id, e.g. /hotel/h12)."""
    if e.role != "link":
        return False
    path = urlsplit(e.props.get("url", "")).path
    return path != urlsplit(here).path and any(
        re.fullmatch(r"[a-z]{0,3}\d+|[a-z]{3,6}-\d+", seg) for seg in path.split("/") if seg)
