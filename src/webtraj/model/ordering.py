"""Orders people expect: numbers inside names by value (`task-2` before `task-10`), and
difficulties easy, medium, hard before any other name."""

from __future__ import annotations

import re
from functools import lru_cache

_DIGITS = re.compile(r"(\d+)")
DIFFICULTIES = ("easy", "medium", "hard")


@lru_cache(maxsize=65536)
def natural_key(text: str) -> tuple:
    """Text and digit runs alternating (re.split keeps the types aligned position by
    position, so two keys always compare); case is ignored, then used to break ties."""
    parts = _DIGITS.split(text.lower())
    return (tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), text)


def difficulty_key(name: str) -> tuple:
    low = name.lower()
    return (DIFFICULTIES.index(low), ()) if low in DIFFICULTIES else (len(DIFFICULTIES),
                                                                       natural_key(name))


def group_key(group: tuple[str, ...]) -> tuple:
    """A (site, difficulty, ...) row's place: each part naturally, difficulties in order."""
    return tuple(difficulty_key(g) if g.lower() in DIFFICULTIES else (-1, natural_key(g))
                 for g in group)


def natural_text(text: str | None) -> str | None:
    """A text whose plain (binary) order is the natural order of `text`: digit runs padded to
    20 digits, case folded, the original after a NUL to break ties. SQL sorts by it through
    a function called once per row (a collation would be called once per comparison)."""
    if text is None:
        return None
    return _DIGITS.sub(lambda m: m.group().zfill(20), text.lower()) + "\x00" + text
