"""Telling a person's own navigations (address bar, back, forward) from the ones their
clicks caused, from a tab's navigation history as Chromium reports it over CDP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webtraj.record.events import HistoryMove

# Transition types of an entry the person typed or picked in the browser's own UI.
TYPED = frozenset({"typed", "address_bar", "auto_bookmark", "generated", "keyword",
                   "keyword_generated"})


@dataclass
class HistoryState:
    """A tab's navigation history as last seen: the current index and entry ids."""

    index: int
    ids: list[int]

    @classmethod
    def of(cls, reply: dict[str, Any]) -> HistoryState:
        return cls(index=int(reply.get("currentIndex", 0)),
                   ids=[int(e.get("id", -1)) for e in reply.get("entries", [])])


def classify(before: HistoryState, reply: dict[str, Any], *, after_input: bool,
             at: float) -> tuple[HistoryMove, HistoryState]:
    """What a main-frame navigation was: back/forward (by how many entries), a `goto`
    typed by the person, or `follow` (the consequence of a click, a key or a script).
    `after_input` says whether the person used the page just before it."""
    now = HistoryState.of(reply)
    entries = reply.get("entries") or [{}]
    current = entries[min(now.index, len(entries) - 1)]
    url = str(current.get("url", ""))
    cur_id = now.ids[now.index] if 0 <= now.index < len(now.ids) else -1
    if cur_id in before.ids and now.index != before.index:
        old = before.ids.index(cur_id)
        delta = before.index - old
        if delta > 0:
            return HistoryMove(kind="back", url=url, steps=delta, time=at), now
        if delta < 0:
            return HistoryMove(kind="forward", url=url, steps=-delta, time=at), now
    if (cur_id not in before.ids and not after_input
            and str(current.get("transitionType", "")) in TYPED):
        return HistoryMove(kind="goto", url=url, time=at), now
    return HistoryMove(kind="follow", url=url, time=at), now
