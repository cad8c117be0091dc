"""Structural comparison of normalized values, producing failure assertions.

Objects compare key by key (extra actual keys optionally ignored), arrays in order or as
multisets (greedy: each expected item takes the first unused equal actual item), and
leaves with the typed values' own equality.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webtraj.suites.webarena_verified.evaluate.result import Assertion
from webtraj.suites.webarena_verified.evaluate.values import Value


def show(value: Any) -> str:
    if isinstance(value, Value):
        return str(value.normalized)
    if isinstance(value, list | tuple):
        items = [show(v) for v in value]
        if len(items) > 3:
            items = [items[0], items[1], "...", items[-1]]
        return "[" + ", ".join(items) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def compare(actual: Any, expected: Any, *, path: str = "value", ordered: bool = False,
            ignored_keys: frozenset[str] = frozenset(),
            ignore_extra_keys: bool = False) -> list[Assertion]:
    """Empty list: equal. Otherwise one assertion per mismatch, named by its path."""
    if expected is None and actual is None:
        return []
    if expected is None or actual is None:
        return [Assertion(name=f"{path}_none_mismatch",
                          messages=(f"expected {show(expected)}, got {show(actual)}",))]
    if isinstance(expected, Mapping):
        return _objects(actual, expected, path, ordered, ignored_keys, ignore_extra_keys)
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple):
            return [Assertion(name=f"{path}_invalid_format",
                              messages=(f"expected an array, got {type(actual).__name__}",))]
        sub = {"ignored_keys": ignored_keys, "ignore_extra_keys": ignore_extra_keys}
        if ordered:
            return _ordered(actual, expected, path, sub)
        return _unordered(actual, expected, path, sub)
    if expected != actual:
        return [Assertion(name=f"{path}_mismatch",
                          messages=(f"expected {show(expected)}, got {show(actual)}",))]
    return []


def _objects(actual: Any, expected: Mapping[str, Any], path: str, ordered: bool,
             ignored: frozenset[str], ignore_extra: bool) -> list[Assertion]:
    if not isinstance(actual, Mapping):
        return [Assertion(name=f"{path}_invalid_format",
                          messages=(f"expected an object, got {type(actual).__name__}",))]
    if not expected:
        raise ValueError(f"{path}: an expected object needs at least one key")
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    out: list[Assertion] = []
    msgs = []
    if extra and not ignore_extra:
        msgs.append(f"extra keys in actual object: {extra}")
    if missing:
        msgs.append(f"missing keys in actual object: {missing}")
    if msgs:
        out.append(Assertion(name=f"{path}_keys_mismatch", messages=tuple(msgs)))
    for key in expected:
        if key in actual and key not in ignored:
            out.extend(compare(actual[key], expected[key], path=f"{path}.{key}", ordered=ordered,
                               ignored_keys=ignored, ignore_extra_keys=ignore_extra))
    return out


def _unordered(actual: Any, expected: Any, path: str, sub: dict[str, Any]) -> list[Assertion]:
    used = [False] * len(actual)
    missing = 0
    for i, exp in enumerate(expected):
        for j, act in enumerate(actual):
            if not used[j] and not compare(act, exp, path=f"{path}[{i}]", **sub):
                used[j] = True
                break
        else:
            missing += 1
    extra = used.count(False)
    if not missing and not extra:
        return []
    matched = len(expected) - missing
    if not missing:
        head = (f"all {matched} expected items found, plus {extra} extra item(s)")
    elif not extra:
        head = f"{missing} expected item(s) missing; matched {matched}/{len(expected)}"
    else:
        head = (f"unordered mismatch: matched {matched}/{len(expected)}, missing {missing}, "
                f"extra {extra}")
    return [Assertion(name=f"{path}_array_values_mismatch",
                      messages=(head, f"expected {show(expected)}, got {show(actual)}"))]


def _ordered(actual: Any, expected: Any, path: str, sub: dict[str, Any]) -> list[Assertion]:
    out: list[Assertion] = []
    n = min(len(actual), len(expected))
    bad = 0
    for i in range(n):
        found = compare(actual[i], expected[i], path=f"{path}[{i}]", ordered=True, **sub)
        if found:
            bad += 1
            out.extend(found)
    if len(actual) != len(expected) or (bad and not out):
        out.append(Assertion(name=f"{path}_array_values_mismatch", messages=(
            f"ordered mismatch: matched {n - bad}/{len(expected)}",
            f"expected {show(expected)}, got {show(actual)}")))
    return out
