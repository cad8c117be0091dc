"""`webtraj export`: runs in other tools' formats."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from webtraj.cli.common import console, err_console, esc, fail
from webtraj.model import InputError

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


@app.command("webarena-verified")
def webarena_verified(
    run: Path = typer.Argument(..., help="Run directory (a webarena-verified run or an "
                               "imported one)."),
    out: Path = typer.Option(..., "--out", help="Submission folder to write."),
    agent: str = typer.Option(None, "--agent", help="Whose trajectories (default: the run's "
                              "only agent)."),
) -> None:
    """Write a run in the WebArena-Verified leaderboard layout: `<task_id>/agent_response.json`
    and `<task_id>/network.har` (static-asset entries trimmed as the reference trims them),
    plus `site_urls.json` naming the deployment. One trajectory per task (the first trial
    without an infrastructure error, else the first).

    Example: webtraj export webarena-verified runs/wav --out submission && webtraj eval
    webarena-verified --logs submission
    """
    from webtraj.evaluate.webarena_verified.submission import write_submission
    from webtraj.store import RunStore

    try:
        store = RunStore.open(run)
    except InputError as exc:
        raise fail(str(exc)) from None
    with store:
        agents = sorted({r.agent for r in store.index.rows()})
        if agent is None:
            if len(agents) > 1:
                raise fail(f"{run}: trajectories of several agents ({', '.join(agents)}); "
                           "choose one with --agent")
            agent = agents[0] if agents else ""
        rows = sorted(store.index.rows(agent=agent),
                      key=lambda r: (r.task_id, r.error is not None, r.trial))
        if not rows:
            raise fail(f"{run}: no trajectory of agent {agent!r}")
        errors: list[str] = []

        def items():  # type: ignore[no-untyped-def]
            for row in rows:
                try:
                    traj = store.load_trajectory(row.trajectory_id)
                except InputError as exc:
                    errors.append(f"{row.trajectory_id}: {exc}")
                    continue
                yield traj, store.trajectory_dir(row.trajectory_id)

        result = write_submission(items(), out, dict(store.info.site_urls))
    for e in errors:
        err_console.print(f"[yellow]skipped corrupt trajectory:[/] {esc(e)}", highlight=False)
    for tid, why in result.skipped:
        err_console.print(f"[yellow]task {esc(tid)}:[/] {esc(why)}", highlight=False)
    console.print(f"wrote {len(result.written)} task folder(s) to {esc(out)} "
                  f"({result.dropped_entries} static-asset HAR entries trimmed)",
                  highlight=False)
