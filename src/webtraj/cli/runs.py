"""`webtraj runs list|show|upgrade|export`."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import typer
from rich.table import Table

from webtraj.cli.common import command_line, console, err_console, esc, fail, print_json
from webtraj.model.errors import InputError
from webtraj.report.run_summary import summarize
from webtraj.store.run_store import CorruptTrajectory, RunStore, find_runs

app = typer.Typer(help="Inspect and export stored runs.\n\nExample: webtraj runs show runs/demo/"
                  "heuristic --json", no_args_is_help=True)


def _open(run: Path) -> RunStore:
    try:
        return RunStore.open(run)
    except InputError as exc:
        raise fail(str(exc)) from None


def _shown_path(path: Path, root: Path) -> str:
    """A run's path relative to the folder listed (the folder's name for the run itself)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else (root.name or str(root))


def _prices(path: Path | None):  # noqa: ANN202 - PriceTable, imported lazily
    if path is None:
        return None
    from webtraj.report.usage import load_prices

    try:
        return load_prices(path)
    except InputError as exc:
        raise fail(str(exc)) from None


PRICES_HELP = ("JSON or YAML file of model prices, USD per million tokens: "
               "{\"gpt-4o*\": {\"prompt\": 2.5, \"completion\": 10}}; adds an estimated cost.")


@app.command("list")
def list_runs(
    root: Path = typer.Argument(Path("runs"), help="Folder to search for runs."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the runs at or below ROOT with their headline metric and errors.

    Example: webtraj runs list runs/ --json
    """
    from webtraj.report.metrics import run_metrics
    from webtraj.store.queries import DatabaseError, IndexReader

    entries = []
    for path in find_runs(root):
        try:
            with RunStore.open(path) as store:
                with IndexReader.open(store.root) as index:
                    metrics = run_metrics(index)
                entries.append({"path": str(path), "run_id": store.info.run_id,
                                "name": store.info.name, "created_at": store.info.created_at,
                                "command": store.info.command, "trajectories": len(store),
                                "errors": metrics.episode_errors,
                                "corrupt": len(store.corrupt),
                                "headline": metrics.headline_text(),
                                "metrics": metrics.model_dump(mode="json")})
        except InputError as exc:
            entries.append({"path": str(path), "error": str(exc)})
        except DatabaseError as exc:  # one damaged index never hides the other runs
            entries.append({"path": str(path), "error": f"index database: {exc}"})
    if as_json:
        print_json(entries)
        return
    table = Table(title=f"runs under {esc(root)}")
    table.add_column("run", overflow="fold", ratio=2)
    table.add_column("created", no_wrap=False, max_width=10)
    table.add_column("episodes", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    table.add_column("headline", overflow="fold", ratio=3)
    for e in entries:
        shown = esc(_shown_path(Path(e["path"]), root))
        if "error" in e:
            table.add_row(shown, "", "", "[red]unreadable[/]", esc(e["error"]))
            continue
        created = datetime.fromtimestamp(e["created_at"], UTC).strftime("%Y-%m-%d %H:%M")
        if e["command"]:  # how the run was made, under its name (wrapped, never cut)
            shown += f"\n[dim]{esc(e['command'])}[/]"
        table.add_row(shown, created, str(e["trajectories"]), str(e["errors"]),
                      esc(e["headline"]))
    console.print(table)


@app.command("show")
def show(
    run: Path = typer.Argument(..., help="Run directory."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    prices: Path = typer.Option(None, "--prices", help=PRICES_HELP),
) -> None:
    """Show a run: its metrics per evaluator family (errors apart), model usage, and one row
    per trajectory.

    Example: webtraj runs show runs/demo --json
    """
    from webtraj.report.tables import metrics_table, usage_table
    from webtraj.report.usage import run_usage

    price_table = _prices(prices)
    with _open(run) as store:
        summary = summarize(store, prices=price_table)
        usage = usage_table(run_usage(store.info), price_table)
    if as_json:
        print_json(summary.model_dump(mode="json"))
        return
    console.print(f"[bold]{esc(run)}[/]  run {esc(summary.info.get('run_id'))}  "
                  f"{summary.n_trajectories} trajectories, {summary.episode_errors} ended in "
                  "an error", highlight=False)
    if summary.metrics is not None:
        console.print(metrics_table(summary.metrics))
    if usage is not None:
        console.print(usage)
    t = Table(title="trajectories")
    t.add_column("trajectory", overflow="fold", ratio=3)
    t.add_column("steps", justify="right", no_wrap=True)
    t.add_column("outcome", overflow="fold", ratio=4)
    for tr in summary.trajectories:
        if tr.error:
            outcome = f"[red]error[/] {esc(tr.error[:200])}"
        else:
            outcome = esc("\n".join(f"{k} {_fmt(v)}" for k, v in tr.scores.items()))
        used = _usage_line(tr)
        if used:
            outcome = f"{outcome or '-'}\n[dim]{esc(used)}[/]"
        t.add_row(esc(tr.trajectory_id), str(tr.n_steps), outcome or "-")
    console.print(t)
    for c in summary.corrupt:
        detail = f"{c.file}: {'field ' + repr(c.field) + ': ' if c.field else ''}{c.message}"
        err_console.print(f"[red]corrupt trajectory {esc(c.trajectory_id)}:[/] {esc(detail)}",
                          highlight=False)
    if summary.corrupt:
        err_console.print(f"{len(summary.corrupt)} corrupt trajectory(ies) left out")


def _usage_line(tr) -> str:  # noqa: ANN001 - TrajectoryRow
    """`12.3s · agent 4 calls 1387+44 tok · constraints:llm 1 call` (what the episode cost)."""
    parts = [f"{tr.wall_s:.1f}s"] if tr.wall_s is not None else []
    for who, u in ([("agent", tr.usage)] if tr.usage else []) + list(tr.judge_usage.items()):
        parts.append(f"{who} {u.calls} call{'s' if u.calls != 1 else ''} "
                     f"{u.prompt_tokens}+{u.completion_tokens} tok")
    return " · ".join(parts)


def _fmt(v: float | None) -> str:
    return "unscored" if v is None else f"{v:.3f}"


@app.command("upgrade")
def upgrade(run: Path = typer.Argument(..., help="Run directory.")) -> None:
    """Bring a run's index (index.sqlite) up to the version this webtraj writes, so every
    reader (runs show/list, report, view) can read it. Keeps every trajectory and score;
    takes the run's lock like any writer.

    Example: webtraj runs upgrade runs/demo
    """
    from webtraj.store.migrations import CURRENT

    try:
        store = RunStore.open(run, write=True, command=command_line())
    except InputError as exc:
        raise fail(str(exc)) from None
    with store:
        found = store.index.found_version
    if found == CURRENT:
        console.print(f"{esc(run)}: index already at version {CURRENT}", highlight=False)
    else:
        console.print(f"{esc(run)}: index upgraded from version {found} to {CURRENT}",
                      highlight=False)


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
