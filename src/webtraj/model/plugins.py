"""Loading user code by spec (`my_pkg.mod:Name`) or by entry-point name, for agents,
evaluators and constraint judges alike.

The spec string, not the loaded object, is what travels to worker processes (local spawn and
Ray), so a plug-in is rebuilt there from the same text. Errors are `InputError`s naming the
spec, so a typo is reported before any browser starts."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from webtraj.model.errors import InputError, from_validation_error

_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def is_spec(text: str) -> bool:
    """`pkg.mod:Name` (or `pkg.mod:Outer.Inner`)."""
    return bool(_SPEC.match(text))


def load_spec(spec: str, *, what: str = "plug-in") -> Any:
    """Import `module:attr` and return the attribute."""
    if not is_spec(spec):
        raise InputError(f"{what} {spec!r} is not of the form 'package.module:Name'",
                         field=what)
    module_name, attr = spec.split(":", 1)
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import module {module_name!r} for {what} {spec!r}: {exc}",
                         field=what) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"module {module_name!r} has no attribute {attr!r} "
                             f"({what} {spec!r})", field=what)
        obj = getattr(obj, part)
    return obj


def entry_point_names(group: str) -> list[str]:
    return sorted({ep.name for ep in importlib.metadata.entry_points(group=group)})


def load_entry_point(group: str, name: str, *, what: str = "plug-in") -> Any | None:
    """The object an installed distribution publishes under `group` as `name`, or None."""
    for ep in importlib.metadata.entry_points(group=group):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:  # a broken plug-in package: say which one
                raise InputError(f"entry point {name!r} ({ep.value}) of group {group!r} "
                                 f"failed to load: {type(exc).__name__}: {exc}",
                                 field=what) from None
    return None


def options_model_of(target: Any) -> type[BaseModel] | None:
    """The pydantic options model a plug-in declares as `Options` (class attribute or
    attribute of a factory function), if any."""
    model = getattr(target, "Options", None)
    if inspect.isclass(model) and issubclass(model, BaseModel):
        return model
    return None


def validate_options(model: type[BaseModel] | None, options: Mapping[str, Any], *,
                     owner: str, file: str | None = None) -> BaseModel | None:
    """Options checked against `model`; unknown keys are errors even when the model itself
    would ignore them (a misspelt option must never be dropped silently)."""
    options = dict(options)
    if model is None:
        if options:
            names = ", ".join(sorted(options))
            raise InputError(f"{owner} takes no options (got {names})", file=file,
                             field=f"option {sorted(options)[0]}")
        return None
    unknown = sorted(k for k in options if k not in model.model_fields)
    if unknown and model.model_config.get("extra") != "allow":
        known = ", ".join(sorted(model.model_fields)) or "none"
        raise InputError(f"unknown option {unknown[0]!r} for {owner}; known options: {known}",
                         file=file, field=f"option {unknown[0]}")
    try:
        return model.model_validate(options)
    except ValidationError as exc:
        err = from_validation_error(exc, file=file)
        raise InputError(f"bad option for {owner}: {err.message}", file=file,
                         field=f"option {err.field}" if err.field else "option") from None


class StrictOptions(BaseModel):
    """Base for options models: frozen, unknown keys forbidden."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_option_pairs(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """`key=value` strings to a dict; a value that parses as JSON is taken as JSON
    (`top_k=5` is 5, `few_shot=false` is False), anything else stays a string."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected key=value, got {pair!r}", field="option")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def load_options_file(path: str | Path) -> dict[str, Any]:
    """A JSON or YAML mapping of options (YAML for .yaml/.yml, JSON otherwise)."""
    import json

    path = Path(path)
    is_yaml = path.suffix.lower() in (".yaml", ".yml")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read options file: {exc.strerror}", file=path) from None
    try:
        if is_yaml:
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as exc:  # both parsers' errors: report where, never a traceback
        raise InputError(f"not valid {'YAML' if is_yaml else 'JSON'}: {exc}",
                         file=path) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("options file must hold a mapping of option names to values",
                         file=path)
    return data
