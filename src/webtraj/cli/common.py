"""Shared CLI plumbing: consoles, escaping, and the one place exceptions become messages.

Every `webtraj` command runs inside `WebtrajGroup.invoke`: a user's mistake (bad input, a
missing extra, an agent or evaluator that cannot be configured, a busy port, an unreadable
file) becomes a one-paragraph message and exit code 2; anything else is reported as a bug,
with the traceback only under `--debug` or WEBTRAJ_DEBUG=1.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup
from typer.exceptions import TyperException

from webtraj.model.errors import InputError, MissingExtra

console = Console()
err_console = Console(stderr=True)

USAGE_ERROR = 2
BUG = 1
# `webtraj run` finished, and some of its episodes ended in an error (infrastructure: never
# scored; running the same command again retries them). Scripts and CI read it.
EPISODE_ERRORS = 3

__all__ = ["EPISODE_ERRORS", "USAGE_ERROR", "UsageError", "WebtrajGroup", "console",
           "err_console", "esc", "fail", "print_json", "user_message"]


def esc(value: object) -> str:
    """Text from data or exceptions, safe to print through Rich (`[ray]` stays `[ray]`)."""
    return escape(str(value))


def command_line() -> str:
    """This command as typed (recorded in run.json and named by a run's lock), its
    credentials redacted (a password in a `--reset-cmd`)."""
    import shlex

    from webtraj.model.command_line import redact_command

    return redact_command("webtraj " + " ".join(shlex.quote(a) for a in sys.argv[1:]))


class UsageError(Exception):
    """A command used in a way that cannot work (an unknown task id, an empty input)."""


def fail(message: str, code: int = USAGE_ERROR) -> typer.Exit:
    """Print a user-facing error (escaped) and return the exit to raise: 2 = usage error."""
    err_console.print(f"[bold red]error:[/] {esc(message)}", highlight=False)
    return typer.Exit(code)


def print_json(obj: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def debug_enabled() -> bool:
    return os.environ.get("WEBTRAJ_DEBUG", "").strip() not in ("", "0") or _DEBUG[0]


_DEBUG = [False]


def set_debug(value: bool) -> None:
    _DEBUG[0] = value


def user_message(exc: BaseException) -> str | None:
    """The message for an exception that is the user's to fix, or None for a bug."""
    from webtraj.agents.protocol import AgentError
    from webtraj.store.queries import DatabaseError

    if isinstance(exc, (InputError, MissingExtra, AgentError, UsageError)):
        return str(exc)
    if isinstance(exc, DatabaseError):
        return (f"a database file cannot be used ({exc}): a run's index.sqlite or the LLM "
                "cache is damaged, locked or not a SQLite file")
    if isinstance(exc, OSError):
        if exc.errno == errno.EADDRINUSE:
            return (f"{exc.strerror or exc}: another program is listening on that port; "
                    "stop it or choose other ports (e.g. --port-base)")
        if exc.filename is not None:
            return f"{exc.filename}: {exc.strerror or exc}"
        if exc.errno in (errno.EACCES, errno.ENOSPC, errno.EROFS, errno.EADDRNOTAVAIL,
                         errno.ECONNREFUSED):
            return str(exc)
    return None


def report_exception(exc: BaseException) -> int:
    """Print what went wrong and return the exit code."""
    message = user_message(exc)
    if message is not None:
        err_console.print(f"[bold red]error:[/] {esc(message)}", highlight=False)
        if debug_enabled():
            err_console.print(esc("".join(traceback.format_exception(exc))), highlight=False)
        return USAGE_ERROR
    err_console.print(
        f"[bold red]internal error:[/] {esc(type(exc).__name__)}: {esc(exc)}\n"
        "This is a bug in webtraj, not in your input. "
        + ("The traceback follows; please include it in a bug report."
           if debug_enabled() else
           "Run the command again as `webtraj --debug ...` (or with WEBTRAJ_DEBUG=1) to see "
           "the traceback, and include it in a bug report."), highlight=False)
    if debug_enabled():
        err_console.print(esc("".join(traceback.format_exception(exc))), highlight=False)
    return BUG


class WebtrajGroup(TyperGroup):
    """The root command group: turns exceptions escaping any sub-command into messages."""

    def invoke(self, ctx: typer.Context) -> object:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):  # typer's own exits and usage errors
            raise
        except BrokenPipeError:
            # The reader went away (`webtraj ... | head`): stop quietly, as Unix tools do, and
            # keep the interpreter's final flush from failing on the closed pipe.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
        except Exception as exc:  # noqa: BLE001 - the one last-resort handler
            raise typer.Exit(report_exception(exc)) from None
