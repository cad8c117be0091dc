"""The registry of suites: the one place that names them.

Each benchmark is one package under `webtraj.suites` (its serving, tasks, options, id syntax,
evaluators, curation default and commands). An entry here gives its name and the module
paths of what the package contributes, as strings that the plug-in loader
(`webtraj.model.plugins.load_spec`) imports when they are used: no layer imports a suite's
package, and the run settings, the CLI, curation and execute ask the registry
(`webtraj.execute.suites`) for a suite and use its protocol.

It lives in `model`, the layer every other one may read, because evaluators (`evaluate`)
and the CLI both look things up in it. Another distribution adds a suite with an entry point
of the group `webtraj.suites` naming its `Suite` subclass (docs/suites.md)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError, from_validation_error
from webtraj.model.plugins import load_spec
from webtraj.model.run_settings import SuiteOptions

ENTRY_POINT_GROUP = "webtraj.suites"


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


def default_suite() -> str:
    """The suite a command serves when the user names none: the registry's first entry."""
    return NAMED[0].name


class _NoOptions(FrozenModel):
    """The options of a suite that takes none."""


@functools.cache
def options_model(suite: str) -> type[BaseModel]:
    """The options model of the suite `suite` (one that takes none: an empty model)."""
    entry = next((e for e in (*NAMED, TASKS_FILE, IMPORTED) if e.name == suite), None)
    if entry is None or entry.options is None:
        return _NoOptions
    model = load_spec(entry.options, what="suite options")
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise InputError(f"suite {suite!r}: its options {entry.options} are not a pydantic "
                         "model", field="suite")
    return model


def options_declaring(name: str) -> type[BaseModel]:
    """The options model of the first suite (in registry order) that takes the option `name`:
    the command line takes that option's help from it."""
    for entry in NAMED:
        model = options_model(entry.name)
        if name in model.model_fields:
            return model
    raise KeyError(f"no suite takes an option {name!r}")


def option_names() -> tuple[str, ...]:
    """Every option a suite of the registry takes, in registry order."""
    return tuple(dict.fromkeys(n for e in NAMED for n in options_model(e.name).model_fields))


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
    for entry in NAMED:
        if entry.commands:
            load_spec(entry.commands, what="suite commands")(groups)
