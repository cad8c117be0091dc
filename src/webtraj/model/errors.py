"""Input errors that name the file, the record and the field, so a user can fix the data."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from pydantic import ValidationError

if TYPE_CHECKING:
    from webtraj.model.usage import Usage


class InputError(ValueError):
    """Bad input: carries where it was found so batch jobs can report and skip it."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        record: str | int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.record = record
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def to_dict(self) -> dict[str, str | int | None]:
        return {"file": self.file, "record": self.record, "field": self.field,
                "message": self.message}


def field_path(loc: tuple[str | int, ...]) -> str:
    """Turn a pydantic location into `steps[3].action.kind`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def from_validation_error(
    exc: ValidationError, *, file: str | Path | None = None, record: str | int | None = None
) -> InputError:
    """Report the first validation problem (and how many more) as an InputError."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    msg = first["msg"]
    if first["type"] == "missing":
        msg = "missing required field"
    elif "input" in first and first["type"] not in ("missing",):
        shown = repr(first["input"])
        if len(shown) > 80:
            shown = shown[:77] + "..."
        msg = f"{msg} (got {shown})"
    if len(errors) > 1:
        msg += f" (+{len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return InputError(msg, file=file, record=record, field=field_path(loc) or None)


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message says which extra brings it."""

    def __init__(self, extra: str, *, module: str, feature: str | None = None) -> None:
        self.extra = extra
        self.module = module
        what = feature or "this feature"
        super().__init__(f"{what} needs the optional package '{module}', which is not "
                         f"installed: pip install 'webtraj[{extra}]'")


def require_extra(extra: str, module: str | None = None, *,
                  feature: str | None = None) -> ModuleType:
    """Import an optional dependency or raise MissingExtra naming the extra to install."""
    name = module or extra
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise MissingExtra(extra, module=name, feature=feature) from exc


class InfrastructureError(RuntimeError):
    """Something outside the agent failed (a model endpoint, the browser, a server): the
    episode is an *error*, counted and retried, never the agent's failure or a score."""

    # The model calls made on the way to the failure (retries, the failed call), set by the
    # agent that made them: the episode ends without a decision and still counts them.
    usage: Usage | None = None
