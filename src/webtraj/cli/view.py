"""`webtraj view`: browse runs in a local web app."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from webtraj.cli.common import console


def view(
    paths: list[Path] = typer.Argument(None, help="A folder of runs, or run folders "
                                       "(default: runs/)."),
    port: int = typer.Option(8765, "--port", help="Port (0 picks a free one)."),
    host: str = typer.Option(None, "--host", help="Address to listen on (default 127.0.0.1; "
                             "anything else is reachable from other machines)."),
) -> None:
    """Browse runs: tables, trajectories step by step, per-step constraint checks, compare.

    Example: webtraj view runs/ --port 8765
    """
    from webtraj.view.server import Viewer, ViewerError, is_loopback

    sources = paths or [Path("runs")]
    if host is not None and not is_loopback(host):
        console.print(f"[yellow]warning:[/] serving on {escape(host)}: anyone who can reach "
                      "this address can read these runs (no login)")
    try:
        viewer = Viewer(sources, host=host or "127.0.0.1", port=port,
                        allow_remote=host is not None)
    except ViewerError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    console.print(f"webtraj view: {escape(viewer.url)}  (Ctrl+C to stop)")
    viewer.run()


def report(
    run: Path = typer.Argument(..., help="A run folder."),
    out: Path = typer.Option(None, "--out", help="Where to write (default RUN/report.html)."),
) -> None:
    """Rebuild a run's static report.html from its index and trajectory folders (after
    `eval`, `judges compare`, `import`, or a run made through the Python API).

    Example: webtraj report runs/demo
    """
    from webtraj.model.errors import InputError
    from webtraj.report.html import write_report
    from webtraj.store import RunStore

    try:
        store = RunStore.open(run)
    except InputError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    with store:
        path = write_report(store, out)
    console.print(f"report: {escape(str(path))}")
