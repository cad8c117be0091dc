"""Keeping what a person types into password fields out of the recording.

The capture script never sends a password field's value, but the accessibility tree shows an
input's current value; fields the person typed a password into (known by role and name from
their input events) have that value masked in every later observation."""

from __future__ import annotations

from webtraj.dom.tree_text import parse_tree

MASK = "••••"


def mask_values(axtree: str, fields: set[tuple[str, str]]) -> str:
    """`axtree` with the `value=` of the listed (role, name) elements masked (the value and
    anything after it on the line: a value may contain commas and brackets)."""
    if not fields:
        return axtree
    lines = axtree.split("\n")
    for el in parse_tree(axtree):
        if (el.role, el.name) in fields and "value" in el.props:
            line = lines[el.line]
            cut = line.rfind("value=")
            if cut >= 0:
                lines[el.line] = line[:cut] + f"value={MASK}]"
    return "\n".join(lines)
