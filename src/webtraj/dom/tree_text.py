"""Reading the accessibility-tree text (`[id] [role] [name] [props]`, tab-indented) back into
elements, for agents that reason over roles and names instead of a model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PROP_KEYS = re.compile(r"^[a-z][a-z_-]*(=|$)")


@dataclass(frozen=True)
class PageElement:
    id: str
    role: str
    name: str
    depth: int
    line: int
    props: dict[str, str] = field(default_factory=dict)

    def has(self, flag: str) -> bool:
        return flag in self.props

    @property
    def value(self) -> str | None:
        return self.props.get("value")


def _brackets(text: str) -> list[str]:
    """Bracketed fields with `\\[`, `\\]`, `\\\\` escapes."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != "[":
            i += 1
            continue
        i += 1
        buf: list[str] = []
        while i < n and text[i] != "]":
            if text[i] == "\\" and i + 1 < n:
                buf.append(text[i + 1])
                i += 2
                continue
            buf.append(text[i])
            i += 1
        out.append("".join(buf))
        i += 1
    return out


def _props(field_text: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for part in re.split(r",\s*(?=[a-z][a-z_-]*(?:=|,|$))", field_text):
        part = part.strip()
        if not part or not _PROP_KEYS.match(part):
            continue
        key, _, value = part.partition("=")
        props[key] = value
    return props


def parse_tree(axtree: str) -> list[PageElement]:
    elements = []
    for n, raw in enumerate(axtree.splitlines()):
        depth = len(raw) - len(raw.lstrip("\t"))
        fields = _brackets(raw)
        if len(fields) < 3:
            continue
        props = _props(fields[3]) if len(fields) > 3 else {}
        elements.append(PageElement(id=fields[0], role=fields[1], name=fields[2], depth=depth,
                                    line=n, props=props))
    return elements
