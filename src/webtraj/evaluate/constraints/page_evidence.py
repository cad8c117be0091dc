"""What a rule judge can read off one observation: URL query and path, structured data
(JSON-LD blocks), and the visible text of the accessibility tree."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from webtraj.model.constraint_values import fold
from webtraj.model.trajectory import Observation

_LINE = re.compile(r"^\s*\[[^\]]*\] \[([^\]]*)\] \[(.*?)\](?: \[(.*)\])?\s*$")


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
    for raw in obs.axtree.splitlines():
        m = _LINE.match(raw)
        if m:
            ev.lines.append((m.group(1), m.group(2), m.group(3) or ""))
    ev.text = "\n".join(fold(name) for _, name, _ in ev.lines if name)
    return ev
