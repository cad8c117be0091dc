"""Reading a JSON file with errors that name the file (every importer starts here), and the
JSON-lines journals an episode appends as it goes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson

from webtraj.model.errors import InputError


def read_json(path: str | Path, *, expect: type | None = None, what: str = "") -> Any:
    """The parsed file; InputError naming it when it cannot be read, is not JSON, or (with
    `expect`) is not a JSON list/object."""
    path = Path(path)
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", file=path) from None
    if expect is not None and not isinstance(data, expect):
        kind = "a JSON list" if expect is list else "a JSON object"
        raise InputError(f"expected {kind}{' of ' + what if what else ''}", file=path)
    return data


T = TypeVar("T")


def read_journal(path: Path, parse: Callable[[bytes], T]) -> list[T]:
    """The records of a JSON-lines journal up to the first one that does not parse (the line a
    kill cut short); empty when the file cannot be read."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(parse(line))
        except ValueError:
            break
    return out
