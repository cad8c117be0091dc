"""The `webtraj` command: one sub-command group per layer."""

from __future__ import annotations

from pathlib import Path

import typer

from webtraj import __version__
from webtraj.cli import curate as curate_cli
from webtraj.cli import eval as eval_cli
from webtraj.cli import explore as explore_cmd
from webtraj.cli import export as export_cli
from webtraj.cli import importers, judges, llm, mind2web, runs, sites
from webtraj.cli import record as record_cmd
from webtraj.cli import run as run_cmd
from webtraj.cli import tasks as tasks_cli
from webtraj.cli import train as train_cli
from webtraj.cli import view as view_cmd
from webtraj.cli.common import WebtrajGroup, console, esc, set_debug
from webtraj.model.suite_registry import add_suite_commands

app = typer.Typer(
    name="webtraj",
    help="Generate, evaluate and curate web-agent trajectories.\n\n"
    "Example: webtraj runs show runs/demo",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=WebtrajGroup,
)
app.add_typer(runs.app, name="runs")
app.add_typer(llm.app, name="llm")
app.add_typer(sites.app, name="sites")
app.add_typer(eval_cli.app, name="eval")
app.add_typer(mind2web.app, name="mind2web")
app.add_typer(judges.app, name="judges")
app.add_typer(importers.app, name="import")
app.add_typer(tasks_cli.app, name="tasks")
app.add_typer(curate_cli.app, name="curate")
app.add_typer(export_cli.app, name="export")
# The commands a suite's package contributes (`webtraj import webarena-verified`, ...).
add_suite_commands({"import": importers.app, "export": export_cli.app, "eval": eval_cli.app})
app.command("run")(run_cmd.run)
app.command("record")(record_cmd.record)
app.command("explore")(explore_cmd.explore)
app.command("view")(view_cmd.view)
app.command("report")(view_cmd.report)
app.command("train")(train_cli.train)
app.command("distill")(train_cli.distill)


def _version(value: bool) -> None:
    if value:
        console.print(f"webtraj {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
    debug: bool = typer.Option(False, "--debug", envvar="WEBTRAJ_DEBUG",
                               help="Show the Python traceback of an error."),
) -> None:
    """webtraj: run agents in a real browser, evaluate and curate their trajectories.

    Example: webtraj runs show runs/demo
    """
    set_debug(debug)


@app.command()
def schema(
    out: Path = typer.Option(..., "--out", help="Folder for the JSON Schema files."),
) -> None:
    """Write JSON Schemas of the stored documents (task, trajectory, score, run).

    Example: webtraj schema --out schemas/
    """
    from webtraj.model.schema import write_schemas

    for path in write_schemas(out):
        console.print(f"wrote {esc(path)}", highlight=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
