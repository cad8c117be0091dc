"""Command-line options for run settings: an option of `webtraj run` (or `record`) that
sets a field of `RunConfig` is named after the field (its parameter; the flag may be an
older, shorter spelling) and takes its default, bounds and help from the field, so the
command line, the Python API and run.json cannot disagree. `tests/test_run_settings.py`
checks every option of both commands against the model, and every other command's options
against the settings models they set (`setting(..., model=...)`)."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from webtraj.cli.common import fail
from webtraj.model.errors import InputError
from webtraj.model.run_settings import RunConfig, SuiteOptions
from webtraj.model.suite_registry import option_flag, option_names, options_declaring

F = TypeVar("F", bound=Callable[..., Any])


def setting_help(name: str, *, form: str = "", negate: bool = False,
                 model: type[BaseModel] = RunConfig) -> str:
    """The field's description as an option's help: `negate` for a `--no-X` flag that turns
    a setting off; `form` says how the command line spells a value the model holds in
    another shape (comma-separated, repeatable, a range). `model`: the settings model whose
    field it is (the run's by default; `webtraj train` uses TrainSettings)."""
    text = model.model_fields[name].description or ""
    if negate:
        text = f"Do not {text[0].lower()}{text[1:]}"
    if form:
        text = f"{text.rstrip('.')}; {form}."
    return text


def setting_default(name: str, *, negate: bool = False,
                    model: type[BaseModel] = RunConfig) -> Any:
    """The field's default as the command line holds it: `...` (required) when it has none,
    None for an empty collection (a repeatable or comma-separated option not given)."""
    field = model.model_fields[name]
    if field.is_required():
        return ...
    default = field.get_default(call_default_factory=True)
    if negate:
        return not default
    return None if default in ((), {}) else default


def given_options(**values: Any) -> SuiteOptions:
    """The suite options a command line was given (those not given, None or empty, left
    out: a run records only what it was given), for the suite to read (`Suite.options`):
    a path as text, text in the syntax of the suite that declares one (`--seeds 0-9`)."""
    from webtraj.execute.suites import parse_setting

    order = {name: i for i, name in enumerate(option_names())}  # as the registry lists them
    read = {k: str(v) if isinstance(v, Path) else parse_setting(k, v) if isinstance(v, str)
            else v for k, v in sorted(values.items(), key=lambda kv: order.get(kv[0], 0))}
    return SuiteOptions(**{k: v for k, v in read.items() if v is not None and v != ()})


def with_suite_options(command: str, *, before: str = "out") -> Callable[[F], F]:
    """Give the command `command` (`run`, or `sites tasks`: the options that change which
    tasks are listed) a flag for each option the registered suites take, built from their
    options models (`setting`, placed and spelled by the field's `OptionFlag`; with no place
    of its own, after the suite options before it, else before `before`). The function takes
    them as `**suite_options` (for `given_options`). Suites taking one option with different
    types, or an option named as one of the command's own, stop the CLI at start-up."""
    listing = command != "run"

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        params = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        names = [p.name for p in params]
        try:
            flags = {n: option_flag(n) for n in option_names()}
            pending = [n for n, f in flags.items() if f.listing or not listing]
            last = None
            while pending:  # an option placed after another suite option waits for it
                ready = [n for n in pending if flags[n].after not in pending] or pending
                name = ready[0]
                pending.remove(name)
                flag = flags[name]
                if name in names:
                    raise InputError(f"a suite's option {name!r} has the name of webtraj "
                                     f"{command}'s own option: rename it", field=name)
                anchor = flag.after if flag.after in names else last
                at = names.index(anchor) + 1 if anchor else names.index(before)
                form = flag.listing_form if listing and flag.listing_form is not None \
                    else flag.form
                option = setting(name, *filter(None, [flag.flag]), form=form,
                                 model=options_declaring(name))
                params.insert(at, inspect.Parameter(
                    name, inspect.Parameter.KEYWORD_ONLY, default=option,
                    annotation=Path if flag.path else _typed_as(name)))
                names.insert(at, name)
                last = name
        except InputError as exc:  # an installed suite's mistake: say so, no traceback
            raise SystemExit(fail(exc.message).exit_code) from None
        function.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params])
        return function

    return decorate


def _typed_as(name: str) -> type:
    """The type the command line reads a suite option as: the field's, when a plain one
    (str, int, float, bool, optional or not); text otherwise (in the suite's syntax)."""
    annotation = options_declaring(name).model_fields[name].annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else str
    return annotation if annotation in (str, int, float, bool) else str


def setting_of(param: str) -> tuple[str, bool] | None:
    """(setting, negated) of an option's parameter: named after the setting (a run setting or
    a suite's option), or `no_` and the setting for a flag that turns it off; None for an
    option that is no setting."""
    fields = {**RunConfig.model_fields, **dict.fromkeys(option_names())}
    if param in fields:
        return param, False
    if param.startswith("no_") and param[3:] in fields:
        return param[3:], True
    return None


def setting(name: str, *flags: str, form: str = "", negate: bool = False,
            model: type[BaseModel] = RunConfig, default: Any = None) -> Any:
    """A typer option for the setting `name` of `model` (the parameter must be named so too;
    a `--no-X` one `no_` and the name). `flags` default to the name's (`--max-steps`);
    `default` only where the command line spells the field's own default in another shape
    (a comma-separated list)."""
    bounds: dict[str, Any] = {}
    for rule in model.model_fields[name].metadata:
        if isinstance(rule, annotated_types.Ge):
            bounds["min"] = rule.ge
        elif isinstance(rule, annotated_types.Gt):  # the model refuses the bound itself
            bounds["min"] = rule.gt
        elif isinstance(rule, annotated_types.Le):
            bounds["max"] = rule.le
        elif isinstance(rule, annotated_types.Lt):
            bounds["max"] = rule.lt
    flags = flags or (f"--{name.replace('_', '-')}",)
    value = setting_default(name, negate=negate, model=model) if default is None else default
    option = typer.Option(value, *flags, help=setting_help(name, form=form, negate=negate,
                                                           model=model), **bounds)
    return from_setting(option, model, name)


def from_setting(option: Any, model: type[BaseModel], name: str) -> Any:
    """Mark a typer option as made from the field `name` of `model` (its `SETTING_MARK`
    attribute), so that `tests/test_run_settings.py` can tell an option that takes its
    default from the model from one that writes the default again."""
    setattr(option, SETTING_MARK, (model, name))
    return option


# The attribute of a typer option made by `setting` (or `from_setting`): (model, field).
SETTING_MARK = "webtraj_setting"


def settings_table() -> str:
    """The run settings as a Markdown table (docs/reference.md holds it; a test checks it is
    current): each field's `webtraj run` option(s), its keyword in `webtraj.api.run`, its
    default and its description."""
    from webtraj.cli.run import run

    app = typer.Typer()
    app.command()(run)
    params = [p for p in typer.main.get_command(app).params if p.param_type_name == "option"]
    flags: dict[str, list[str]] = {}
    for p in params:
        found = setting_of(p.name)
        name = found[0] if found else _OPTIONS_OF.get(p.name, p.name)
        flags.setdefault(name, []).extend(p.opts)
    keyword = {"agent": "`agent` (a spec or an agent object)",
               "tasks_file": "`tasks` (a path, or the tasks themselves)"}
    rows = ["| `webtraj run` | `webtraj.api.run` | default | what |", "| --- | --- | --- | --- |"]

    def row(name: str, field: FieldInfo, key: str) -> str:
        default = "required" if field.is_required() else \
            f"`{field.get_default(call_default_factory=True)!r}`"
        options = ", ".join(f"`{f}`" for f in flags.get(name, ()))
        text = (field.description or "").replace("|", "\\|").replace("__", "\\_\\_")
        return f"| {options} | {key} | {default} | {text} |"

    for name, field in RunConfig.model_fields.items():
        rows.append(row(name, field, keyword.get(name, f"`{name}`")))
        if name == "suite_options":  # then each suite's own, as the command line offers them
            rows.extend(row(o, options_declaring(o).model_fields[o], f"`{o}`")
                        for o in option_names())
    return "\n".join(rows) + "\n"


# Options that spell one setting in several (agent options as pairs and as a file).
_OPTIONS_OF = {"agent_option": "agent_options", "agent_options_file": "agent_options"}
