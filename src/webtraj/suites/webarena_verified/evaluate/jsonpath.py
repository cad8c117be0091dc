"""`$...` keys in expected post data / response content: JSONPath or key regex lookups."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from webtraj.suites.webarena_verified.evaluate.text import is_pattern


def is_path_key(key: str) -> bool:
    """`$.a.b` (JSONPath), `$.^regex$` and `^regex$` (match a top-level key)."""
    return isinstance(key, str) and (key.startswith("$") or is_pattern(key))


@lru_cache(maxsize=256)
def _compiled(path: str) -> Any:
    from jsonpath_ng.ext import parse

    return parse(path)


def _json_fields(data: Any) -> Any:
    """Fields holding JSON text are searched again decoded (forms often embed JSON)."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if isinstance(v, str):
                try:
                    out[k] = json.loads(v)
                except json.JSONDecodeError:
                    out[k] = v
            else:
                out[k] = _json_fields(v)
        return out
    if isinstance(data, list):
        return [_json_fields(v) for v in data]
    return data


def _by_key_regex(data: Any, pattern: str) -> Any:
    if not isinstance(data, dict):
        return None
    try:
        rx = re.compile(pattern)
    except re.error:
        return None
    hits = [v for k, v in data.items() if rx.match(k)]
    if len(hits) == 1:
        return hits[0]
    return tuple(hits) if hits else None


def extract(data: Any, path: str) -> Any:
    """The value at `path` in actual data: one match gives the value, several a tuple
    (as does any filter expression `?(...)`), none gives None."""
    if path.startswith("$.^") and path.endswith("$"):
        return _by_key_regex(data, path[2:])
    if is_pattern(path):
        return _by_key_regex(data, path)
    try:
        expr = _compiled(path)
    except Exception:  # noqa: BLE001 - a bad path matches nothing in actual data
        return None
    found = expr.find(data)
    if not found:
        found = expr.find(_json_fields(data))
    if len(found) == 1 and "?(" not in path:
        return found[0].value
    if found:
        return tuple(m.value for m in found)
    return None
