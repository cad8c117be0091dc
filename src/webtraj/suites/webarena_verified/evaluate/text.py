"""Text normalization shared by every WebArena-Verified value type.

The reference compares strings after NFKC, ASCII transliteration, hyphen and whitespace
folding and case-folding; `^...$` strings are regular expressions and are left untouched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from contextlib import suppress

from unidecode import unidecode

# Marks that carry no meaning for comparison (removed before NFKC turns ™ into "TM").
_MARKS = {0x2122: None, 0x00AE: None, 0x2120: None, 0x00A9: None}
_HYPHENS = "[\u002d\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u00ad]"
# A hyphen next to a letter separates words ("Buffalo-Niagara"); "123-4567" keeps its hyphen.
_WORD_HYPHEN = re.compile(rf"(?<=[a-zA-Z]){_HYPHENS}|{_HYPHENS}(?=[a-zA-Z])")
_SPACES = re.compile(r"\s+")

Derender = Callable[..., str]


def is_pattern(value: object) -> bool:
    """A config string written `^...$` is a regular expression, not a literal."""
    return isinstance(value, str) and len(value) >= 2 and value[0] == "^" and value[-1] == "$"


def fold_text(s: str, derender: Derender | None = None) -> str:
    """The comparison form of free text (see module docstring)."""
    if not s or is_pattern(s):
        return s
    if derender is not None and "http" in s:
        with suppress(Exception):  # best effort, like the reference
            s = derender(s, strict=False)
    s = s.translate(_MARKS)
    s = unicodedata.normalize("NFKC", s)
    s = _WORD_HYPHEN.sub(" ", s)
    out = []
    for ch in s:
        if unicodedata.category(ch).startswith("C"):
            if ch in "\t\n\r":
                out.append(" ")
        else:
            out.append(ch)
    s = unidecode("".join(out)).encode("ascii", "ignore").decode("ascii")
    return _SPACES.sub(" ", s.strip()).casefold()
