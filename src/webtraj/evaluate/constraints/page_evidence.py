"""What a rule judge can read off one observation: URL query and path, structured data
(JSON-LD blocks), and the text of the accessibility tree that shows the page's state.

Text is evidence of state only where a page shows its state: values of form controls
(wherever they are), selected options, checked boxes, headings (and the links inside them),
list items, table cells, paragraphs and text of the page's content. Links and buttons elsewhere
name where one could go, not where one is, and banners, navigation and footers (`banner`,
`navigation`, `contentinfo`) are site furniture: a footer link "Hotels in Paris" on a results
page for Berlin is a mention, never evidence that the city is Paris. Text that addresses an
evaluator or agent (llm/untrusted.py) is never evidence. The page's title counts (a results
page's title says what it shows)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from webtraj.llm.untrusted import find_injections
from webtraj.model.constraint_values import fold
from webtraj.model.trajectory import Observation

_LINE = re.compile(r"^\s*\[[^\]]*\] \[([^\]]*)\] \[(.*?)\](?: \[(.*)\])?\s*$")
_VALUE = re.compile(r"(?:^|, )value=(.*)$")
# Landmarks whose text is site furniture, not the page's state.
FURNITURE = frozenset({"banner", "navigation", "contentinfo"})
# Roles that name a place to go or a thing to do, not a state (unless inside a heading).
MENTION_ROLES = frozenset({"link", "button", "menuitem", "tab"})
# Controls whose options are choices, not state, until one is selected.
CHOICE_ROLES = frozenset({"option", "radio", "menuitemradio", "menuitemcheckbox", "treeitem"})


def key_form(key: str) -> str:
    """`check_in`, `checkIn`, `check-in` -> `checkin`."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


@dataclass
class Evidence:
    url: str
    params: dict[str, list[str]] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    data: dict[str, list[Any]] = field(default_factory=dict)
    data_types: set[str] = field(default_factory=set)
    # The page publishes its state as {"values": {...}} (webtraj's page-state convention):
    # then what the state leaves out is not shown, whatever else the page's text says.
    states_values: bool = False
    lines: list[tuple[str, str, str]] = field(default_factory=list)  # role, name, props
    text: str = ""


def _walk(obj: Any, out: dict[str, list[Any]], types: set[str], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(obj, dict):
        t = obj.get("@type")
        if isinstance(t, str):
            types.add(t.lower())
        for k, v in obj.items():
            if str(k).startswith("@"):  # JSON-LD keywords (@type, @context), not page data
                continue
            if isinstance(v, (dict, list)):
                _walk(v, out, types, depth + 1)
            else:
                out.setdefault(key_form(str(k)), []).append(v)
    elif isinstance(obj, list):
        for x in obj:
            _walk(x, out, types, depth + 1)


def evidence(obs: Observation, *, use_data: bool = True) -> Evidence:
    parts = urlsplit(obs.url)
    ev = Evidence(url=obs.url)
    for k, v in parse_qsl(parts.query, keep_blank_values=True):
        ev.params.setdefault(key_form(k), []).append(v)
    ev.path = [unquote(s) for s in parts.path.split("/") if s]
    if use_data:
        for block in obs.structured_data:
            _walk(block, ev.data, ev.data_types)
            if isinstance(block, dict) and isinstance(block.get("values"), dict):
                ev.states_values = True
    ev.lines, values = state_lines(obs.axtree)
    shown = [obs.title, *values, *(name for role, name, props in ev.lines
                                   if role not in CHOICE_ROLES or _chosen(props))]
    ev.text = "\n".join(fold(t) for t in shown if t)
    return ev


def _chosen(props: str) -> bool:
    return any(p in props for p in ("selected", "checked", "pressed"))


def state_lines(axtree: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The tree's lines that may show page state (role, name, props; choices are kept with
    their selected/checked state for boolean constraints), and the values of its form
    controls (see the module's docstring for what counts)."""
    lines: list[tuple[str, str, str]] = []
    values: list[str] = []
    ancestors: list[tuple[int, str]] = []  # (depth, role) of the lines above this one
    for raw in axtree.splitlines():
        m = _LINE.match(raw)
        if not m:
            continue
        depth = len(raw) - len(raw.lstrip("\t"))
        while ancestors and ancestors[-1][0] >= depth:
            ancestors.pop()
        role, name, props = m.group(1), m.group(2), m.group(3) or ""
        above = {r for _, r in ancestors}
        ancestors.append((depth, role))
        value = _VALUE.search(props)
        if value and value.group(1).strip():
            values.append(value.group(1).strip())  # a control's value is state anywhere
        if above & FURNITURE and role not in ("checkbox", "switch", "radio", "option"):
            continue
        if role in MENTION_ROLES and "heading" not in above:
            continue
        if len(name) > 15 and find_injections(name):
            continue  # text that talks to the judge is not the page's state
        lines.append((role, name, props))
    return lines, values
