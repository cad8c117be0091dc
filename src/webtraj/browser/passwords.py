"""Password values never leave the page: masked in every observation the moment it is captured,
and in the actions that typed them.

The accessibility tree shows an input's current value, so a password typed into a field (by an
agent, a person, or the page itself) would be in every later observation. `capture` reads the
values of the page's password inputs (every frame) with the tree, and `mask_values` masks the
`value=` of textbox lines holding one of them; the recorder also masks fields a person typed a
password into, by role and name. Cleaned HTML masks the `value` attribute of password inputs
(html_clean.py).

A field's history counts, not only its type now: the environment remembers every value it saw
in a password input and every value typed into one (`PasswordMemory`), so a page that switches
the field to `type=text` (a "show password" button, a script on input) still shows `••••`.

An action that types into a password field is stored with its value masked: as a reference to
the secret by name (`{secret:SITE}`, the password of the account `--accounts` gives for SITE)
when the value is a known secret, so that replaying the action types the real secret again
(`resolve_secret`), else as `••••`."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

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


# `{secret:NAME}`: a known secret typed into a password field, by its name.
_SECRET_REF = re.compile(r"\{secret:([A-Za-z0-9_.-]+)\}")


def secret_ref(name: str) -> str:
    return f"{{secret:{name}}}"


def resolve_secret(value: str, named: Mapping[str, str]) -> str:
    """The text to type for `value`: a secret reference (the whole value) becomes the named
    secret's value; anything else, an unknown name included, is typed as written."""
    m = _SECRET_REF.fullmatch(value)
    return named.get(m.group(1), value) if m else value


class PasswordMemory:
    """The values an episode's password fields held or were typed with (see module
    docstring), and how a typed one is stored."""

    def __init__(self, named: Mapping[str, str] = ()) -> None:
        self.named = dict(named)
        self.values: set[str] = set()

    def typed(self, value: str) -> str:
        """Remember `value`, typed into a password field; the value to store in its place."""
        if value:
            self.values.add(value)
        name = next((n for n, v in self.named.items() if v == value), None)
        return secret_ref(name) if name is not None else MASK
