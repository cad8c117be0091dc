"""The registry of suites: the one place that names them.

Each benchmark is one package under `webtraj.suites` (its serving, tasks, options, id syntax,
evaluators, curation default and commands). An entry here gives its name and the module
paths of what the package contributes, as strings that the plug-in loader
(`webtraj.model.plugins.load_spec`) imports when they are used: no layer imports a suite's
package, and the run settings, the CLI, curation and execute ask the registry
(`webtraj.execute.suites`) for a suite and use its protocol.

It lives in `model`, the layer every other one may read, because evaluators (`evaluate`)
and the CLI both look things up in it. Another distribution adds a suite with an entry point
of the group `webtraj.suites` naming its `Suite` subclass, or its `SuiteEntry` to declare
options and commands too (docs/suites.md); `entries()` holds both kinds."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError, from_validation_error
from webtraj.model.plugins import entry_point_names, load_entry_point, load_spec
from webtraj.model.run_settings import SuiteOptions

ENTRY_POINT_GROUP = "webtraj.suites"


@dataclass(frozen=True)
class OptionFlag:
    """How the command line offers a suite's option, when not as `--name` typed as the field:
    metadata of the options model's field (`Annotated[str | None, OptionFlag(...)]`). The
    commands that take suite options (`webtraj run`, `webtraj sites tasks`) make their flags
    from these (`webtraj.cli.run_settings.with_suite_options`)."""

    # The flag, when not the field's name (`--site-urls` for `site_urls_file`).
    flag: str | None = None
    # How the command line spells the value (added to the field's description as help).
    form: str = ""
    # `form` in `webtraj sites tasks`, when it says less there.
    listing_form: str | None = None
    # Whether `webtraj sites tasks` offers it (an option that changes which tasks are listed).
    listing: bool = True
    # The option it follows in `--help` (another option or a run setting); when the command
    # has no such option, or none is named, it follows the suite options placed before it.
    after: str | None = None
    # Read on the command line as a file path (`<path>`); stored as text.
    path: bool = False


class SuiteEntry(FrozenModel):
    """A suite's registry entry: module paths (`package.module:Name`), loaded when used."""

    name: str
    # The `webtraj.execute.suites.protocol.Suite` subclass.
    suite: str
    # Evaluators the package contributes: registry name -> its `evaluate.registry.Entry`.
    evaluators: dict[str, str] = Field(default_factory=dict)
    # Its options model (a light module: the CLI loads it for its options' help), read by
    # `suite_options`; None: the suite takes no options of its own.
    options: str | None = None
    # A function `(groups: dict[str, typer.Typer]) -> None` adding the suite's own
    # commands to the CLI's command groups (`import`, `export`, `eval`).
    commands: str | None = None
    # Its evaluators that curation may read as a judge (`curate --judge NAME`): a whole
    # evaluator with a per-step success curve of its own.
    outcome_judges: tuple[str, ...] = ()


# Suites a user names (`run --suite NAME`, `sites tasks --suite NAME`), in listing order;
# the first is the one a run serves when it names none.
NAMED: tuple[SuiteEntry, ...] = (
    SuiteEntry(name="booking", suite="webtraj.suites.booking.suite:BookingSuite"),
    SuiteEntry(name="miniwob", suite="webtraj.suites.miniwob.suite:MiniWoBSuite",
               options="webtraj.suites.miniwob.options:MiniWoBSuiteOptions",
               evaluators={"miniwob": "webtraj.suites.miniwob.evaluator:ENTRY"},
               outcome_judges=("miniwob",)),
    SuiteEntry(name="webarena-verified",
               suite="webtraj.suites.webarena_verified.suite:WebArenaVerifiedSuite",
               options="webtraj.suites.webarena_verified.options:WebArenaVerifiedSuiteOptions",
               evaluators={
                   "AgentResponseEvaluator":
                       "webtraj.suites.webarena_verified.evaluate.plugin:AGENT_RESPONSE",
                   "NetworkEventEvaluator":
                       "webtraj.suites.webarena_verified.evaluate.plugin:NETWORK_EVENT"},
               commands="webtraj.suites.webarena_verified.commands:add_commands"),
)
# The suites a run has without naming one: the tasks of a file, and an imported run.
TASKS_FILE = SuiteEntry(name="tasks-file",
                        suite="webtraj.suites.tasks_file.suite:TasksFileSuite")
IMPORTED = SuiteEntry(name="imported", suite="webtraj.suites.imported.suite:ImportedSuite")


@functools.cache
def entries() -> tuple[SuiteEntry, ...]:
    """The suites a user names: the registry's, then those installed distributions publish
    (an entry point naming a `SuiteEntry`, or a `Suite` subclass: its entry is made here).
    A published name the registry already has is not taken."""
    out = {e.name: e for e in NAMED}
    for name in entry_point_names(ENTRY_POINT_GROUP):
        if name in out:
            continue
        target = load_entry_point(ENTRY_POINT_GROUP, name, what="suite")
        if not isinstance(target, SuiteEntry):
            out[name] = SuiteEntry(name=name,
                                   suite=f"{target.__module__}:{target.__qualname__}")
            continue
        if target.name != name:
            raise InputError(f"suite {name!r} is the entry of a suite called "
                             f"{target.name!r}", field="suite")
        if target.evaluators or target.outcome_judges:  # read at import by evaluate, curate
            raise InputError(f"suite {name!r}: a published suite names its evaluators by "
                             "module path in its tasks, or publishes them with entry points "
                             "of 'webtraj.evaluators', not in its entry", field="suite")
        out[name] = target
    return tuple(out.values())


def default_suite() -> str:
    """The suite a command serves when the user names none: the registry's first entry."""
    return NAMED[0].name


class _NoOptions(FrozenModel):
    """The options of a suite that takes none."""


@functools.cache
def options_model(suite: str) -> type[BaseModel]:
    """The options model of the suite `suite` (one that takes none: an empty model)."""
    entry = next((e for e in (*entries(), TASKS_FILE, IMPORTED) if e.name == suite), None)
    if entry is None or entry.options is None:
        return _NoOptions
    model = load_spec(entry.options, what="suite options")
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise InputError(f"suite {suite!r}: its options {entry.options} are not a pydantic "
                         "model", field="suite")
    return model


@functools.cache
def _option_owners() -> dict[str, tuple[str, ...]]:
    """Each option a suite takes -> the suites taking it, in registry order. Suites share an
    option (one flag) only when they declare it with the same type."""
    owners: dict[str, list[str]] = {}
    for entry in entries():
        for name, field in options_model(entry.name).model_fields.items():
            first = owners.setdefault(name, [entry.name])[0]
            if first == entry.name:
                continue
            other = options_model(first).model_fields[name].annotation
            if other != field.annotation:
                raise InputError(f"the suites {first!r} and {entry.name!r} both take an option "
                                 f"{name!r}, of different types ({_type_name(other)} and "
                                 f"{_type_name(field.annotation)}): rename one", field=name)
            owners[name].append(entry.name)
    return {name: tuple(suites) for name, suites in owners.items()}


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation)


def options_declaring(name: str) -> type[BaseModel]:
    """The options model of the first suite (in registry order) that takes the option `name`:
    the command line takes that option's help from it."""
    suites = _option_owners().get(name)
    if not suites:
        raise KeyError(f"no suite takes an option {name!r}")
    return options_model(suites[0])


def option_names() -> tuple[str, ...]:
    """Every option a suite of the registry takes, in registry order."""
    return tuple(_option_owners())


def option_flag(name: str) -> OptionFlag:
    """How the command line offers the suite option `name` (its field's `OptionFlag`)."""
    metadata = options_declaring(name).model_fields[name].metadata
    return next((m for m in metadata if isinstance(m, OptionFlag)), OptionFlag())


def suite_options(suite: str, given: SuiteOptions) -> Any:
    """`given` (a run's or a listing's `suite_options`) read into the suite's options model:
    the one way a suite's options are read. An option the suite does not take, or a bad
    value, is an `InputError` naming the option and the suite."""
    model = options_model(suite)
    values = dict(given.model_extra or {})
    for name in values:
        if name not in model.model_fields:
            takes = ", ".join(model.model_fields) or "none"
            raise InputError(f"the {suite} suite takes no option {name!r} (its options: "
                             f"{takes})", field=name)
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def suite_evaluators() -> dict[str, str]:
    """Every evaluator a built-in suite contributes: name -> module path of its entry."""
    return {name: spec for entry in NAMED for name, spec in entry.evaluators.items()}


def outcome_judges() -> tuple[str, ...]:
    """The evaluators of the suites that curation may read as a judge, in registry order."""
    return tuple(j for entry in NAMED for j in entry.outcome_judges)


def add_suite_commands(groups: dict[str, Any]) -> None:
    """Let each suite's package add its own commands to the CLI's command groups."""
    for entry in entries():
        if entry.commands:
            load_spec(entry.commands, what="suite commands")(groups)
