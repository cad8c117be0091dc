"""Shared CLI plumbing: consoles and error exits."""

from __future__ import annotations

import sys

import orjson
import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    # Messages carry data and exception text (paths, option names, `webtraj[train]`): never
    # Rich markup.
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code)


def print_json(obj: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()
