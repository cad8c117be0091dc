"""`webtraj sites ...`: the embedded sandbox websites."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from urllib.parse import urlsplit

import typer

from webtraj.cli.common import UsageError, console, esc, fail

app = typer.Typer(help="The embedded sandbox booking websites.\n\nExample: webtraj sites serve "
                  "--today 2026-01-15", no_args_is_help=True)


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to bind (keep it on loopback)."),
    port_base: int = typer.Option(8760, "--port-base", help="Site i listens on base + i."),
    today: str = typer.Option(None, help="Fix 'today' (YYYY-MM-DD); default: the real date."),
    seed: int = typer.Option(0, help="Inventory seed."),
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
def list_sites(port_base: int = typer.Option(8760, "--port-base")) -> None:
    """List the sandbox sites with their brand, port and placeholder, and how many MiniWoB++
    tasks run in Chromium.

    Example: webtraj sites list
    """
    from webtraj.sites.registry import SITE_CLASSES

    for cls in SITE_CLASSES:
        console.print(f"{cls.key:8} {cls.brand:11} :{port_base + cls.offset}  "
                      f"__{cls.key.upper()}__  {cls.tagline}", highlight=False)
    _list_miniwob()


def _list_miniwob() -> None:
    """The MiniWoB++ suite, with how many of its tasks run in Chromium (as last measured)."""
    from rich.markup import escape

    from webtraj.suites.miniwob.check import load_check

    check = load_check()
    if check is None:
        return
    starts = sum(t.starts for t in check.tasks)
    drag = [t.name for t in check.running if t.needs_drag]
    install = escape("pip install 'webtraj[miniwob]'")
    console.print(f"\nMiniWoB++ suite (--suite miniwob; {install}): "
                  f"{len(check.running)} of {len(check.tasks)} tasks run in Chromium "
                  f"{escape(check.chromium_version)} (miniwob {escape(check.miniwob_version)}, "
                  f"checked {check.checked_on}); {starts} pages start.", highlight=False)
    if drag:
        console.print(f"  {len(drag)} of those ask for a drag, which webtraj's actions cannot "
                      f"do: {escape(', '.join(drag))}", highlight=False)
    by_why: dict[str, list[str]] = {}
    for t in check.failing:
        by_why.setdefault(t.why or "unknown", []).append(t.name)
    for why, names in by_why.items():
        console.print(f"  {len(names)} do not run ({escape(why)}): {escape(', '.join(names))}",
                      highlight=False)


@app.command()
def tasks(
    suite: str = typer.Option("booking", help="Task suite name (only 'booking')."),
    today: str = typer.Option(None, help="Fix 'today' (YYYY-MM-DD); default: the real date."),
    seed: int = typer.Option(0, help="Inventory seed."),
    port_base: int = typer.Option(8760, "--port-base", help="Port base the start URLs use."),
    out: Path = typer.Option(..., "--out", help="JSONL file to write."),
) -> None:
    """Write a task suite as JSONL, one task per line.

    Example: webtraj sites tasks --suite booking --today 2026-01-15 --out tasks.jsonl
    """
    from webtraj.sites.common.dates import resolve_today
    from webtraj.sites.tasks import booking_suite

    if suite != "booking":
        raise fail(f"unknown suite {suite!r}; available: booking")
    try:
        day = resolve_today(today)
    except ValueError:
        raise fail(f"--today must be YYYY-MM-DD, got {today!r}") from None
    items = booking_suite(day, seed=seed, port_base=port_base)
    out.write_bytes(b"".join(t.to_json_bytes(indent=False) + b"\n" for t in items))
    console.print(f"wrote {len(items)} tasks to {esc(out)}", highlight=False)
