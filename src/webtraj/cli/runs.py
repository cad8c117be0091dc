"""`webtraj runs list|show|export`."""

from __future__ import annotations

import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import typer
from rich.table import Table

from webtraj.cli.common import console, err_console, esc, fail, print_json
from webtraj.model.errors import InputError
from webtraj.report.summary import summarize
from webtraj.store.run_store import CorruptTrajectory, RunStore, find_runs

app = typer.Typer(help="Inspect and export stored runs.\n\nExample: webtraj runs show runs/demo/"
                  "heuristic --json", no_args_is_help=True)


def _open(run: Path) -> RunStore:
    try:
        return RunStore.open(run)
    except InputError as exc:
        raise fail(str(exc)) from None


@app.command("list")
def list_runs(
    root: Path = typer.Argument(Path("runs"), help="Folder to search for runs."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the runs at or below ROOT.

    Example: webtraj runs list runs/ --json
    """
    entries = []
    for path in find_runs(root):
        try:
            with RunStore.open(path) as store:
                entries.append({"path": str(path), "run_id": store.info.run_id,
                                "name": store.info.name, "created_at": store.info.created_at,
                                "command": store.info.command, "trajectories": len(store),
                                "corrupt": len(store.corrupt)})
        except InputError as exc:
            entries.append({"path": str(path), "error": str(exc)})
        except sqlite3.DatabaseError as exc:  # one damaged index never hides the other runs
            entries.append({"path": str(path), "error": f"index database: {exc}"})
    if as_json:
        print_json(entries)
        return
    table = Table(title=f"runs under {esc(root)}")
    for col in ("path", "run id", "created", "trajectories", "command"):
        table.add_column(col)
    for e in entries:
        if "error" in e:
            table.add_row(esc(e["path"]), "[red]unreadable[/]", "", "", esc(e["error"]))
            continue
        created = datetime.fromtimestamp(e["created_at"], UTC).strftime("%Y-%m-%d %H:%M")
        table.add_row(esc(e["path"]), esc(e["run_id"]), created, str(e["trajectories"]),
                      esc(e["command"]))
    console.print(table)


@app.command("show")
def show(
    run: Path = typer.Argument(..., help="Run directory."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show a run: its configuration, an aggregate per evaluator and one row per trajectory.

    Example: webtraj runs show runs/demo --json
    """
    with _open(run) as store:
        summary = summarize(store)
    if as_json:
        print_json(summary.model_dump(mode="json"))
        return
    console.print(f"[bold]{esc(summary.path)}[/]  run {esc(summary.info.get('run_id'))}  "
                  f"{summary.n_trajectories} trajectories")
    if summary.evaluators:
        t = Table(title="evaluators")
        for col in ("evaluator", "mean", "SR", "CSR", "scored", "unscored", "errors"):
            t.add_column(col, justify="right" if col != "evaluator" else "left")
        for ev in summary.evaluators.values():
            t.add_row(esc(ev.evaluator), _fmt(ev.mean), _fmt(ev.sr), _fmt(ev.csr), str(ev.scored),
                      str(ev.unscored), str(ev.errors))
        console.print(t)
    t = Table(title="trajectories")
    for col in ("trajectory", "site", "difficulty", "agent", "steps", "error", "scores"):
        t.add_column(col)
    for tr in summary.trajectories:
        scores = ", ".join(f"{k}={_fmt(v)}" for k, v in tr.scores.items())
        t.add_row(esc(tr.trajectory_id), esc(tr.site or ""), esc(tr.difficulty or ""),
                  esc(tr.agent), str(tr.n_steps), esc((tr.error or "")[:60]), esc(scores))
    console.print(t)
    for c in summary.corrupt:
        detail = f"{c.file}: {'field ' + repr(c.field) + ': ' if c.field else ''}{c.message}"
        err_console.print(f"[red]corrupt trajectory {esc(c.trajectory_id)}:[/] {esc(detail)}",
                          highlight=False)
    if summary.corrupt:
        err_console.print(f"{len(summary.corrupt)} corrupt trajectory(ies) left out")


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


@app.command("export")
def export(
    run: Path = typer.Argument(..., help="Run directory."),
    out: Path = typer.Option(None, "--out", "-o", help="JSONL file (default: stdout)."),
    with_scores: bool = typer.Option(True, help="Attach the latest scores to each line."),
) -> None:
    """Export a run's trajectories as JSON lines (one trajectory per line).

    Example: webtraj runs export runs/demo --out demo.jsonl
    """
    errors: list[CorruptTrajectory] = []
    n = 0
    with _open(run) as store:
        sink = open(out, "wb") if out else sys.stdout.buffer  # noqa: SIM115
        try:
            for traj in store.iter_trajectories(errors=errors):
                obj = traj.model_dump(mode="json", exclude_none=True)
                if with_scores:
                    obj["scores"] = [s.model_dump(mode="json", exclude_none=True)
                                     for s in store.scores(traj.trajectory_id)]
                sink.write(orjson.dumps(obj) + b"\n")
                n += 1
        finally:
            if out:
                sink.close()
    for e in errors:
        err_console.print(f"[red]skipped corrupt trajectory:[/] {esc(e.error)}", highlight=False)
    err_console.print(f"exported {n} trajectories" + (f" to {esc(out)}" if out else "")
                      + (f"; {len(errors)} corrupt skipped" if errors else ""))
