"""The `webtraj` command: one sub-command group per layer."""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path
from types import ModuleType

import typer

from webtraj import __version__
from webtraj.cli.common import WebtrajGroup, console, esc, set_debug

# Command groups (module with an `app`) and commands (module, function), in `--help` order.
# A command line that names one of them imports only its module: `webtraj run` starts without
# importing curation, training or the viewer's commands (half of the CLI's import time).
GROUPS = {"runs": "runs", "llm": "llm", "sites": "sites", "eval": "eval",
          "mind2web": "mind2web", "judges": "judges", "import": "importers", "tasks": "tasks",
          "curate": "curate", "export": "export"}
COMMANDS = {"run": ("run", "run"), "record": ("record", "record"),
            "explore": ("explore", "explore"), "view": ("view", "view"),
            "report": ("view", "report"), "train": ("train", "train"),
            "distill": ("train", "distill")}
# The groups a suite's package adds commands to (`webtraj import webarena-verified`, ...).
SUITE_GROUPS = ("import", "export", "eval")


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"webtraj.cli.{name}")


@functools.cache
def _add_suite_commands() -> None:
    """Once per process: the groups are the modules' own (a suite adds to all at once)."""
    from webtraj.model.suite_registry import add_suite_commands

    add_suite_commands({name: _module(GROUPS[name]).app for name in SUITE_GROUPS})


def build_app(only: str | None = None) -> typer.Typer:
    """The `webtraj` command; with `only` (a command's name), just that command."""
    root = typer.Typer(
        name="webtraj",
        help="Generate, evaluate and curate web-agent trajectories.\n\n"
        "Example: webtraj runs show runs/demo",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        cls=WebtrajGroup,
    )
    groups = {name: _module(module).app for name, module in GROUPS.items()
              if only in (None, name)}
    for name, group in groups.items():
        root.add_typer(group, name=name)
    if any(name in groups for name in SUITE_GROUPS):
        _add_suite_commands()
    for name, (module, function) in COMMANDS.items():
        if only in (None, name):
            root.command(name)(getattr(_module(module), function))
    root.callback()(_root)
    if only in (None, "schema"):
        root.command()(schema)
    return root


def _version(value: bool) -> None:
    if value:
        console.print(f"webtraj {__version__}")
        raise typer.Exit()


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


def schema(
    out: Path = typer.Option(..., "--out", help="Folder for the JSON Schema files."),
) -> None:
    """Write JSON Schemas of the stored documents (task, trajectory, score, run).

    Example: webtraj schema --out schemas/
    """
    from webtraj.model.schema import write_schemas

    for path in write_schemas(out):
        console.print(f"wrote {esc(path)}", highlight=False)


def __getattr__(name: str) -> typer.Typer:
    """`app`, the whole command, built when first asked for (tests, documentation)."""
    if name != "app":
        raise AttributeError(name)
    built = globals()["app"] = build_app()
    return built


def _invoked(argv: list[str]) -> str | None:
    """The command a command line names (its first word that is not a root option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in GROUPS or word in COMMANDS or word == "schema" else None
    return None


def main() -> None:
    build_app(_invoked(sys.argv[1:]))()


if __name__ == "__main__":
    main()
