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

from typing import Any

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.plugins import load_spec

ENTRY_POINT_GROUP = "webtraj.suites"


class SuiteEntry(FrozenModel):
    """A suite's registry entry: module paths (`package.module:Name`), loaded when used."""

    name: str
    # The `webtraj.execute.suites.protocol.Suite` subclass.
    suite: str
    # Evaluators the package contributes: registry name -> its `evaluate.registry.Entry`.
    evaluators: dict[str, str] = Field(default_factory=dict)
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
               evaluators={"miniwob": "webtraj.suites.miniwob.evaluator:ENTRY"},
               outcome_judges=("miniwob",)),
    SuiteEntry(name="webarena-verified",
               suite="webtraj.suites.webarena_verified.suite:WebArenaVerifiedSuite",
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
