"""Finding the element a person acted on in the observation taken before the action.

The capture script reports role, accessible name and the element's rank among equals
(`nth`); the observation's tree lists `[id] [role] [name]`. An exact (role, name) match is
taken first, then a case- and space-insensitive one, then a unique same-role element whose
name contains the reported one (or the reverse: a button whose tree name adds an icon's
label). Nothing is guessed beyond that: an element not found keeps its role and name as the
action's target, and the step says it was not in the observation."""

from __future__ import annotations

from webtraj.dom.tree_text import PageElement, parse_tree
from webtraj.record.events import ElementInfo


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def find_element(axtree: str, info: ElementInfo) -> str | None:
    """The observation id of the reported element, or None."""
    els = [e for e in parse_tree(axtree) if e.id]
    same_role = [e for e in els if e.role == info.role]
    for pick in (lambda e: e.name == info.name,
                 lambda e: _fold(e.name) == _fold(info.name)):
        hits = [e for e in same_role if pick(e)]
        if hits:
            return _nth(hits, info.nth).id
    if not info.name:
        return None
    want = _fold(info.name)
    loose = [e for e in same_role if e.name and (want in _fold(e.name) or _fold(e.name) in want)]
    return loose[0].id if len(loose) == 1 else None


def _nth(hits: list[PageElement], nth: int) -> PageElement:
    return hits[nth] if 0 <= nth < len(hits) else hits[0]
