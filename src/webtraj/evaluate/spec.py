"""Evaluator configs written on a command line: `NAME[:key=value,...]`, where NAME may be a
user's evaluator `package.module:Class` (`my_pkg.mod:MyEval:k=1`)."""

from __future__ import annotations

from typing import Any

import orjson

from webtraj.model import InputError
from webtraj.model.plugins import is_spec


def parse_evaluator_spec(spec: str) -> dict[str, Any]:
    """`constraints:judge=rule,steps=all` -> {"evaluator": "constraints", "judge": "rule", ...}.
    Values are read as JSON when they parse (numbers, true/false, lists), else as text."""
    name, _, rest = spec.partition(":")
    head, colon, tail = rest.partition(":")
    if rest and "=" not in head and "," not in head and is_spec(f"{name.strip()}:{head}"):
        name, rest = f"{name.strip()}:{head}", tail if colon else ""
    if not name.strip():
        raise InputError(f"evaluator spec {spec!r} has no name; expected NAME[:key=value,...]")
    config: dict[str, Any] = {"evaluator": name.strip()}
    for part in filter(None, (p.strip() for p in _split_top_level(rest))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise InputError(f"evaluator option {part!r} in {spec!r} is not key=value")
        try:
            config[key.strip()] = orjson.loads(value)
        except orjson.JSONDecodeError:
            config[key.strip()] = value.strip()
    return config


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets and quotes, so JSON lists stay whole."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
