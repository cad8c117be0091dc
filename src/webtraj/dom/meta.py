"""Salient attribute words of an element as MindAct's bracketed tree shows them: in a
fixed attribute order, lower-cased, dull values and URLs dropped, words of 15+ characters
dropped, 5 words per attribute, 20 in all, no repeated value."""

from __future__ import annotations

# Attribute order and filters of the reference representation.
REPR_ATTRIBUTES = ("role", "aria_role", "type", "alt", "aria_description", "aria_label",
                   "label", "title", "name", "text_value", "value", "placeholder",
                   "input_checked", "input_value", "option_selected", "class")
DULL_VALUES = frozenset({"hidden", "none", "presentation", "null", "undefined"})


def meta_words(attrs: dict[str, str], max_value_words: int = 5, max_words: int = 20) -> str:
    seen: set[str] = set()
    parts: list[str] = []
    for name in REPR_ATTRIBUTES:
        raw = attrs.get(name)
        if raw is None:
            continue
        v = raw.lower()
        if v in DULL_VALUES or v.startswith("http"):
            continue
        v = " ".join([w for w in v.split() if len(w) < 15][:max_value_words])
        if v and v not in seen:
            seen.add(v)
            parts.append(v)
    return " ".join(" ".join(parts).split()[:max_words])
