"""Command-line options for run settings: an option of `webtraj run` (or `record`) that
sets a field of `RunConfig` is named after the field (its parameter; the flag may be an
older, shorter spelling) and takes its default, bounds and help from the field, so the
command line, the Python API and run.json cannot disagree. `tests/test_run_settings.py`
checks every option of both commands against the model."""

from __future__ import annotations

from typing import Any

import annotated_types
import typer

from webtraj.model.run_settings import RunConfig


def setting_help(name: str, *, form: str = "", negate: bool = False) -> str:
    """The field's description as an option's help: `negate` for a `--no-X` flag that turns
    a setting off; `form` says how the command line spells a value the model holds in
    another shape (comma-separated, repeatable, a range)."""
    text = RunConfig.model_fields[name].description or ""
    if negate:
        text = f"Do not {text[0].lower()}{text[1:]}"
    if form:
        text = f"{text.rstrip('.')}; {form}."
    return text


def setting_default(name: str, *, negate: bool = False) -> Any:
    """The field's default as the command line holds it: `...` (required) when it has none,
    None for an empty collection (a repeatable or comma-separated option not given)."""
    field = RunConfig.model_fields[name]
    if field.is_required():
        return ...
    default = field.get_default(call_default_factory=True)
    if negate:
        return not default
    return None if default in ((), {}) else default


def setting(name: str, *flags: str, form: str = "", negate: bool = False) -> Any:
    """A typer option for the run setting `name` (the parameter must be named so too; a
    `--no-X` one `no_` and the name). `flags` default to the name's (`--max-steps`)."""
    bounds: dict[str, Any] = {}
    for rule in RunConfig.model_fields[name].metadata:
        if isinstance(rule, annotated_types.Ge):
            bounds["min"] = rule.ge
        elif isinstance(rule, annotated_types.Le):
            bounds["max"] = rule.le
    flags = flags or (f"--{name.replace('_', '-')}",)
    return typer.Option(setting_default(name, negate=negate), *flags,
                        help=setting_help(name, form=form, negate=negate), **bounds)
