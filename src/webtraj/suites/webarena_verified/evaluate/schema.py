"""Schema-driven normalization: turn raw JSON into typed values for comparison.

`strict` is used for expected values (a failure is a config error and raises); actual
values use `strict=False`, where a value that does not fit its type stays raw (and so
will not compare equal). A list where a single value is expected means alternatives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from webtraj.suites.webarena_verified.evaluate.measures import (
    Coordinates,
    Currency,
    Distance,
    Duration,
    LocationName,
)
from webtraj.suites.webarena_verified.evaluate.urls import Url
from webtraj.suites.webarena_verified.evaluate.values import (
    Base64Text,
    Boolean,
    Date,
    Empty,
    JsonText,
    Markdown,
    Month,
    Number,
    StringList,
    Text,
    Value,
)

TYPES: dict[str, type[Value]] = {
    "currency": Currency, "date": Date, "duration": Duration, "distance": Distance,
    "coordinates": Coordinates, "url": Url, "boolean": Boolean, "string": Text,
    "string_list": StringList, "number": Number, "integer": Number, "month": Month,
    "null": Empty, "json": JsonText, "markdown": Markdown, "base64": Base64Text,
    "location-name": LocationName,
}
# Accepted by the reference's registry but not implemented here (never used by the dataset).
UNSUPPORTED = {"full_address"}


def type_class(name: str) -> type[Value]:
    try:
        return TYPES[name]
    except KeyError:
        extra = " (not supported by webtraj)" if name in UNSUPPORTED else ""
        raise ValueError(f"unknown value type {name!r}{extra}") from None


def _loads(value: Any) -> Any:
    try:
        return json.loads(value)
    except (json.JSONDecodeError, TypeError):
        return None


def schema_type(schema: Mapping[str, Any]) -> tuple[str | Mapping[str, Any], bool]:
    """(type name, or the object schema itself; is it an array of that)."""
    if not isinstance(schema, Mapping):
        raise ValueError(f"a schema must be an object, got {type(schema).__name__}")
    kind = schema.get("type")
    if kind == "array":
        inner, _ = schema_type(schema.get("items", {}))
        return inner, True
    if kind == "object":
        return schema, False
    return schema.get("format") or kind or "string", False


def _simple(value: Any, item_schema: Mapping[str, Any] | None, strict: bool, **kw: Any) -> Any:
    if item_schema is None:
        cls: type[Value] = Text
    else:
        cls = type_class(item_schema.get("format") or item_schema.get("type", "string"))
    try:
        return cls(value, **kw)
    except Exception as exc:
        if strict:
            raise ValueError(f"cannot read {value!r} as {cls.type_name}") from exc
        return value


def normalize_items(value: Any, schema: Mapping[str, Any] | None, strict: bool,
                    **kw: Any) -> tuple[Any, ...] | None:
    """A result list (the agent's `retrieved_data`) read against an array schema."""
    if not strict:
        if isinstance(value, str):
            parsed = _loads(value)
            if isinstance(parsed, list):
                value = parsed
        if not isinstance(value, list | tuple):
            value = (value,)
    if not isinstance(value, list | tuple):
        if strict:
            raise ValueError(f"expected an array, got {type(value).__name__}")
        return None
    if schema is None:
        items: Mapping[str, Any] | None = None
        kind = "string"
    else:
        if schema.get("type", "array") != "array":
            raise ValueError(f"results schema type must be 'array', got {schema.get('type')!r}")
        items = schema.get("items", {})
        kind = items.get("type", "string")
    if kind == "object":
        return tuple(_object_or_list(v, items, strict, **kw) for v in value)
    return tuple(_simple(v, items, strict, **kw) for v in value)


def normalize(value: Any, schema: Mapping[str, Any] | None, strict: bool, **kw: Any) -> Any:
    """Any JSON value against a schema (objects are normalized field by field)."""
    if not value:
        return None
    if not schema:
        if isinstance(value, Mapping):
            schema = {"type": "object"}
        elif isinstance(value, list | tuple):
            schema = {"type": "array"}
        else:
            schema = {}
    kind, is_array = schema_type(schema)
    if isinstance(kind, Mapping):
        return _object_or_list(value, kind, strict, **kw)
    if is_array:
        if not isinstance(value, list | tuple):
            if strict:
                raise ValueError(f"expected an array, got {type(value).__name__}: {value!r}")
            return value
        return _array(value, kind, strict, **kw)
    return single(value, kind, strict, **kw)


def single(value: Any, type_name: str, strict: bool, **kw: Any) -> Any:
    cls = type_class(type_name)
    try:
        return cls(value, **kw)
    except Exception:
        if strict:
            raise
        return value


def _array(value: Any, kind: str | Mapping[str, Any], strict: bool, **kw: Any) -> Any:
    if isinstance(value, str):
        parsed = _loads(value)
        if isinstance(parsed, list):
            value = parsed
    if not isinstance(value, list | tuple):
        if strict:
            raise ValueError(f"expected an array, got {type(value).__name__}: {value!r}")
        return value
    if isinstance(kind, Mapping):
        return _object_or_list(value, kind, strict, **kw)
    cls = type_class(kind)
    out = []
    for i, item in enumerate(value):
        try:
            out.append(cls(item, **kw))
        except Exception as exc:
            if strict:
                raise ValueError(f"cannot read array item {i} ({item!r}) as {kind}") from exc
            out.append(item)
    return tuple(out)


def _object_or_list(value: Any, schema: Mapping[str, Any], strict: bool, **kw: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_object(v, schema, strict, **kw) for v in value)
    return _object(value, schema, strict, **kw)


def _object(obj: Any, schema: Mapping[str, Any], strict: bool, **kw: Any) -> Any:
    if isinstance(obj, str):
        parsed = _loads(obj)
        if isinstance(parsed, dict):
            obj = parsed
    if not isinstance(obj, Mapping):
        if strict:
            raise ValueError(f"expected an object, got {type(obj).__name__}: {obj!r}")
        return obj
    props = schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, raw in obj.items():
        if raw is None:
            out[name] = None
            continue
        prop = props.get(name)
        try:
            if prop is None:
                out[name] = Text(raw, **kw)
                continue
            kind, is_array = schema_type(prop)
            if is_array:
                out[name] = _array(raw, kind, strict, **kw)
            elif isinstance(kind, Mapping):
                out[name] = _object(raw, kind, strict, **kw)
            else:
                # An unknown type name on a property falls back to text, as in the reference.
                out[name] = TYPES.get(kind, Text)(raw, **kw)
        except Exception as exc:
            if strict:
                raise ValueError(f"cannot normalize field {name!r} ({raw!r}): {exc}") from exc
            out[name] = raw
    return out
