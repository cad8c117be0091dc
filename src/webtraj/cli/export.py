"""`webtraj export`: runs in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from webtraj.cli.common import console, err_console, esc, fail

app = typer.Typer(help="Export runs in other tools' formats.\n\nExample: webtraj export "
                  "mind2web runs/demos --out m2w-demos", no_args_is_help=True)


def run_trajectories(run: Path, agent: str):  # type: ignore[no-untyped-def]
    """(run info, the run's trajectories of `agent`); unreadable ones are named and skipped."""
    from webtraj.store import RunStore

    with RunStore.open(run) as store:
        errors: list = []
        trajs = list(store.iter_trajectories(errors=errors, agent=agent))
        info = store.info
    for bad in errors:
        err_console.print(f"[yellow]skipped:[/] {esc(bad.trajectory_id)}: {esc(bad.error)}",
                          highlight=False)
    return info, trajs


@app.command("mind2web")
def mind2web(
    run: Path = typer.Argument(..., help="Run directory (recorded with --html for raw_html)."),
    out: Path = typer.Option(..., "--out", help="Folder for the Mind2Web task file."),
    agent: str = typer.Option("human", "--agent", help="Whose trajectories to export."),
) -> None:
    """Write a run's recorded steps in Mind2Web's raw task format (cleaned and raw HTML,
    operation, positive and negative candidates by backend_node_id), plus the recorded
    actions as predictions, for `webtraj mind2web rank | predict | score`.

    Example: webtraj export mind2web runs/demos --out m2w-demos && webtraj mind2web score
    --data m2w-demos/tasks.json --predictions m2w-demos/recorded_predictions.jsonl
    """
    from webtraj.formats.mind2web.predictions import write_predictions
    from webtraj.record.mind2web import export_trajectories
    from webtraj.store.atomic import write_bytes_atomic

    _, trajs = run_trajectories(run, agent)
    tasks, preds, counts = export_trajectories(trajs)
    if not tasks:
        raise fail(f"{run}: no step of agent {agent!r} acts on an element; nothing to export")
    out.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out / "tasks.json", orjson.dumps(tasks))
    write_predictions(out / "recorded_predictions.jsonl", preds)
    console.print(f"wrote {counts.actions} action(s) of {len(tasks)} task(s) to "
                  f"{esc(out / 'tasks.json')}", highlight=False)
    if counts.left_out:
        left = ", ".join(f"{k} {v}" for k, v in sorted(counts.left_out.items()))
        err_console.print(f"left out (no Mind2Web operation): {esc(left)}", highlight=False)
    if counts.without_html:
        err_console.print(f"[yellow]warning:[/] {counts.without_html} step(s) were recorded "
                          "without --html: their raw_html is empty", highlight=False)
