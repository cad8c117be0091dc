"""`webtraj record`: record a person's demonstration of tasks as scored trajectories."""

from __future__ import annotations

from pathlib import Path

import typer

from webtraj.cli.common import command_line, console, err_console, esc, fail
from webtraj.cli.run_settings import setting
from webtraj.record.settings import RecordSettings


def record(
    suite: str = typer.Option(None, "--suite", help="Built-in task suite: booking."),
    tasks_file: Path = setting("tasks_file", "--tasks"),
    task_ids: str = typer.Option(None, "--task-ids", help="Comma-separated task ids."),
    url: str = typer.Option(None, "--url", help="Start URL of a one-off task (with --intent)."),
    intent: str = typer.Option(None, "--intent", help="What the one-off task asks."),
    today: str = setting("today"),
    seed: int = setting("seed"),
    allow_origins: list[str] = setting("allow_origins", "--allow", form="repeatable"),
    html: bool = setting("html", model=RecordSettings),
    headed: bool = typer.Option(None, "--headed/--headless", help="Show the browser "
                                "(default: headed when a display exists)."),
    cdp_port: int = typer.Option(None, "--cdp-port", min=1, max=65535, help="Let another "
                                 "program attach to the browser over CDP on this port."),
    idle_ms: int = setting("idle_ms", model=RecordSettings),
    timeout: float = setting("timeout_s", "--timeout", model=RecordSettings),
    no_evaluate: bool = setting("evaluate", "--no-eval", negate=True),
    out: Path = typer.Option(..., "--out", help="Run directory (re-run to add recordings)."),
) -> None:
    """Record your own demonstration: a browser opens on each task's start page with the
    task in a separate panel window; do the task, type the answer (if any) in the panel and
    press Finish (or Control+Shift+Enter in the site's tab).

    Example: webtraj record --suite booking --task-ids booking.hotels.01 --out runs/demos

    Example: webtraj record --url https://example.org --intent "Find the contact page"
    --html --out runs/demos
    """
    from webtraj.execute.recording_run import (
        BrowserWindow,
        RecordedTask,
        execute_recording,
        url_task,
    )
    from webtraj.model import InputError
    from webtraj.model.run import RunConfig

    sources = sum(x is not None for x in (suite, tasks_file, url))
    if sources != 1:
        raise fail("give exactly one of --suite, --tasks or --url (with --intent)")
    if (url is None) != (intent is None):
        raise fail("--url and --intent go together")
    try:
        extra = [url_task(url, intent)] if url else []
        config = RunConfig(suite=suite, tasks_file=str(tasks_file) if tasks_file else None,
                           agent="human", today=today, seed=seed, timeout_s=timeout,
                           task_ids=tuple(t for t in (task_ids or "").split(",") if t),
                           allow_origins=tuple(allow_origins or ()),
                           evaluate=not no_evaluate)
        settings = RecordSettings(idle_ms=idle_ms, timeout_s=timeout, html=html)
    except ValueError as exc:
        raise fail(str(exc)) from None

    def on_task(ev: RecordedTask) -> None:
        scores = ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}"
                           for k, v in ev.scores.items())
        line = f"{ev.trajectory_id}: {ev.steps} steps, {ev.termination}"
        if ev.error:
            line += f" ({ev.error})"
        console.print(esc(line + (f"; {scores}" if scores else "")), highlight=False)

    err_console.print("recording: do each task in the browser, then Finish in the panel "
                      "(or Control+Shift+Enter)")
    command = command_line()
    try:
        store = execute_recording(config, out, window=BrowserWindow(headed=headed,
                                                                    cdp_port=cdp_port),
                                  settings=settings, url_tasks=extra, command=command,
                                  on_task=on_task)
    except (InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    store.close()
    console.print(f"run: {esc(out)}", highlight=False)
