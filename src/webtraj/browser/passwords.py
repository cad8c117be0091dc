"""Password values never leave the page: masked in every observation the moment it is captured.

The accessibility tree shows an input's current value, so a password typed into a field (by an
agent, a person, or the page itself) would be in every later observation. `capture` reads the
values of the page's password inputs (every frame) with the tree, and `mask_values` masks the
`value=` of textbox lines holding one of them; the recorder also masks fields a person typed a
password into, by role and name. Cleaned HTML masks the `value` attribute of password inputs
(html_clean.py)."""

from __future__ import annotations

from collections.abc import Collection

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from webtraj.dom.tree_text import parse_tree

MASK = "••••"
_VALUES = """() => Array.from(document.querySelectorAll('input[type=password]'),
                               e => e.value).filter(v => v)"""


async def password_values(page: Page) -> set[str]:
    """The non-empty values of every password input of the page's frames."""
    found: set[str] = set()
    for frame in page.frames:
        try:
            found.update(str(v) for v in await frame.evaluate(_VALUES))
        except PlaywrightError:
            continue  # a frame that went away has no values left to show
    return found


def mask_values(axtree: str, fields: Collection[tuple[str, str]] = (),
                values: Collection[str] = ()) -> str:
    """`axtree` with the `value=` of the listed (role, name) elements, and of textboxes whose
    value is one of `values`, masked (the value and anything after it on the line: a value may
    contain commas and brackets)."""
    if not fields and not values:
        return axtree
    lines = axtree.split("\n")
    for el in parse_tree(axtree):
        value = el.props.get("value")
        if value is None:
            continue
        if (el.role, el.name) in fields or (el.role == "textbox" and value in values):
            line = lines[el.line]
            cut = line.rfind("value=")
            if cut >= 0:
                lines[el.line] = line[:cut] + f"value={MASK}]"
    return "\n".join(lines)
