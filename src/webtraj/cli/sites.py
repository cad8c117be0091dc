"""`webtraj sites ...`: the embedded sandbox websites and the task suites (their tasks)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from urllib.parse import urlsplit

import typer

from webtraj.cli.common import UsageError, console, esc, fail
from webtraj.cli.run_settings import given_options, setting, with_suite_options
from webtraj.model.run_settings import RunConfig
from webtraj.model.suite_registry import default_suite
from webtraj.model.task_listing import DEFAULT_PORT_BASE, ListOptions

app = typer.Typer(help="The embedded sandbox sites and the task suites.\n\nExample: webtraj "
                  "sites serve --today 2026-01-15", no_args_is_help=True)


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to bind (keep it on loopback)."),
    port_base: int = typer.Option(DEFAULT_PORT_BASE, "--port-base",
                                  help="Site i listens on base + i."),
    today: str = typer.Option(None, help="Fix 'today' (YYYY-MM-DD); default: the real date."),
    seed: int = setting("seed", model=RunConfig),
) -> None:
    """Serve the five sandbox sites, each on its own port.

    Example: webtraj sites serve --port-base 8760 --today 2026-01-15
    """
    from webtraj.sites.common.dates import resolve_today
    from webtraj.sites.registry import site_urls
    from webtraj.sites.server import serve_all

    try:
        day = resolve_today(today)
    except ValueError:
        raise fail(f"--today must be YYYY-MM-DD, got {today!r}") from None
    urls = site_urls(host, port_base)
    for key, url in urls.items():
        _check_port(host, urlsplit(url).port or 80, key)
    for key, url in urls.items():
        console.print(f"{key:8} {esc(url)}/", highlight=False)
    try:
        asyncio.run(serve_all(host, port_base, day, seed))
    except SystemExit as exc:  # uvicorn exits when a socket cannot be bound after our check
        raise UsageError(f"a sandbox site could not start on {host} (ports {port_base}.."
                         f"{port_base + len(urls) - 1}); see the message above, or choose "
                         "another --port-base") from exc


def _check_port(host: str, port: int, site: str) -> None:
    """A busy port is the user's to fix: say which site and port, before serving any."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise UsageError(f"cannot serve the {site} site on {host}:{port}: "
                             f"{exc.strerror or exc}; stop the program using that port or "
                             "choose another --port-base") from None


@app.command("list")
def list_sites(port_base: int = setting("port_base", model=ListOptions)) -> None:
    """List the suites: the sandbox sites with their brand, port and placeholder, and how
    many MiniWoB++ tasks run in Chromium.

    Example: webtraj sites list
    """
    from webtraj.execute.suites import named_suites

    for i, suite in enumerate(named_suites()):
        lines = suite.describe(ListOptions(port_base=port_base))
        if lines and i:
            console.print()
        for line in lines:
            console.print(esc(line), highlight=False)


@app.command()
@with_suite_options("sites tasks")
def tasks(
    suite: str = typer.Option(default_suite(), help="Task suite: booking | miniwob | "
                              "webarena-verified (`webtraj sites list`)."),
    today: str = setting("today", model=ListOptions),
    seed: int = setting("seed", model=ListOptions),
    port_base: int = setting("port_base", model=ListOptions),
    task_ids: str = setting("task_ids", model=ListOptions),
    out: Path = typer.Option(..., "--out", help="JSONL file to write."),
    **suite_options: object,
) -> None:
    """Write a suite's tasks as JSONL, one task per line, with what reproduces them (a
    sandbox task's date and seed); `webtraj run --tasks FILE` serves them as written.

    Example: webtraj sites tasks --suite booking --today 2026-01-15 --out tasks.jsonl

    Example: webtraj sites tasks --suite miniwob --task-ids click-button --seeds 0-4 --out mw.jsonl

    Example: webtraj sites tasks --suite webarena-verified --subset hard --out wav-hard.jsonl
    """
    from webtraj.execute.suites import get_suite
    from webtraj.model import InputError

    try:
        chosen = get_suite(suite)
        ids = tuple(t for t in (task_ids or "").split(",") if t)
        options = ListOptions(today=today, seed=seed, port_base=port_base, task_ids=ids,
                              suite_options=given_options(**suite_options))
        chosen.options(options)  # an option the suite does not take, before any server
        items = chosen.list_tasks(options)
        if ids:
            items, unknown = chosen.select(items, ids)
            if unknown:
                raise InputError(f"unknown task id(s) of the {suite} suite: "
                                 f"{', '.join(unknown)}", field="task-ids")
    except InputError as exc:
        raise fail(exc.message) from None
    out.write_bytes(b"".join(t.to_json_bytes(indent=False) + b"\n" for t in items))
    console.print(f"wrote {len(items)} tasks to {esc(out)}", highlight=False)
