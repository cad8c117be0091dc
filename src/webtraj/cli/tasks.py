"""`webtraj tasks`: propose tasks with a model, extract their constraints, refresh stale
dates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import typer

from webtraj.cli.common import console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.run_settings import setting
from webtraj.generate.options import DuplicateSettings, GenerateOptions, RefreshSettings
from webtraj.model.task import Difficulty

app = typer.Typer(help="Generate tasks, extract constraints, refresh dates.\n\nExample: webtraj "
                  "tasks refresh-dates --tasks tasks.jsonl --out fresh.jsonl",
                  no_args_is_help=True)


def _load(path: Path) -> tuple[list, list]:
    from webtraj.formats.tasks import load_tasks
    from webtraj.model import InputError

    try:
        return load_tasks(path)
    except InputError as exc:
        raise fail(str(exc)) from None


def _report_bad(errors: list, limit: int = 5) -> None:
    for e in errors[:limit]:
        err_console.print(f"[yellow]skipped:[/] {esc(e)}", highlight=False)
    if len(errors) > limit:
        err_console.print(f"[yellow]... and {len(errors) - limit} more bad records[/]")


def _write_tasks(path: Path, tasks: Iterable) -> int:
    from webtraj.store.atomic import write_bytes_atomic

    lines = [t.to_json_bytes(indent=False) + b"\n" for t in tasks]
    write_bytes_atomic(path, b"".join(lines))
    return len(lines)


def _write_report(path: Path | None, report) -> None:  # type: ignore[no-untyped-def]
    if path is None:
        return
    from webtraj.store.atomic import write_bytes_atomic

    write_bytes_atomic(path, report.model_dump_json(indent=2).encode() + b"\n")
    console.print(f"report: {path}")


def _today(value: str | None):  # type: ignore[no-untyped-def]
    from webtraj.generate.window import parse_today

    try:
        return parse_today(value)
    except ValueError:
        raise fail(f"--today must be an ISO date (YYYY-MM-DD), got {value!r}") from None


@app.command("refresh-dates")
def refresh_dates(
    tasks: Path = typer.Option(..., "--tasks", help="Task file (JSONL or JSON list)."),
    out: Path = typer.Option(..., "--out", help="Where to write the refreshed tasks (JSONL)."),
    today: str = typer.Option(None, "--today", help="Today as YYYY-MM-DD (default: now)."),
    seed: int = setting("seed", model=RefreshSettings),
    report: Path = typer.Option(None, "--report", help="Also write the full report (JSON)."),
    show: int = typer.Option(10, "--show", help="Changed tasks to list (0: none)."),
) -> None:
    """Move dates that are past or less than a month ahead to 1-4 months ahead. All dates
    of a task move together by whole weeks (order, durations and weekdays kept), each written
    as before, in the intent, constraints, start URL, reference actions and evaluators.

    Example: webtraj tasks refresh-dates --tasks tasks.jsonl --today 2026-03-10 --out fresh.jsonl
    """
    from rich.table import Table

    from webtraj.generate.refresh import refresh_tasks

    day = _today(today)
    loaded, errors = _load(tasks)
    _report_bad(errors)
    new, rep = refresh_tasks(loaded, day, seed=seed)
    rep = rep.model_copy(update={"bad_records": len(errors),
                                 "errors": tuple(str(e) for e in errors)})
    n = _write_tasks(out, new)
    if show:
        changed = [i for i in rep.items if i.status == "refreshed"][:show]
        if changed:
            t = Table(title=f"moved tasks (first {len(changed)})")
            for col in ("task", "days", "now from", "to", "fields", "warnings"):
                t.add_column(col, no_wrap=col == "task")
            for i in changed:
                t.add_row(esc(i.task_id), str(i.shift_days), str(i.earliest), str(i.latest),
                          str(len(i.changes)), str(len(i.warnings)))
            console.print(t)
    for text, count in Counter(w for i in rep.items for w in i.warnings).most_common():
        err_console.print(f"[yellow]warning ({count} tasks):[/] {esc(text)}", highlight=False)
    console.print(f"wrote {n} tasks to {esc(out)}: {rep.refreshed} refreshed, {rep.fresh} already "
                  f"1-4 months ahead (or later), {rep.no_dates} without dates; "
                  f"{rep.warnings} warnings; {len(errors)} bad records skipped "
                  f"(today {day.isoformat()})", highlight=False)
    _write_report(report, rep)


@app.command()
def generate(
    site: str = typer.Option(..., "--site", help="Sandbox site (hotels, rentals, flights, "
                             "transit, cars) or a web address."),
    n: int = setting("per_level", "--n", model=GenerateOptions),
    out: Path = typer.Option(..., "--out", help="Where to write the tasks (JSONL)."),
    levels: str = typer.Option(",".join(d.value for d in Difficulty), "--levels",
                               help="Difficulty levels."),
    llm: str = llm_option("writing the tasks"),
    existing: Path = typer.Option(None, "--existing",
                                  help="Tasks already written: new ones must differ."),
    today: str = typer.Option(None, "--today", help="Today as YYYY-MM-DD (default: now)."),
    seed: int = setting("seed", model=GenerateOptions),
    constraints: str = setting("constraints", model=GenerateOptions),
    embedder: str = setting("embedder", model=DuplicateSettings),
    threshold: float = setting("threshold", "--dup-threshold", model=DuplicateSettings),
    max_rounds: int = setting("max_rounds", model=GenerateOptions),
    batch: int = setting("batch", model=GenerateOptions),
    strict_dates: bool = setting("strict_dates", model=GenerateOptions),
    report: Path = typer.Option(None, "--report", help="Also write the report (JSON)."),
    no_cache: bool = no_cache_option(),
) -> None:
    """Ask a model for web tasks (precise, varied, realistic, free, without log-in, goal-level,
    dated 1-4 months ahead, fitting the site), check them, attach constraints, drop
    near-duplicates and write the rest; difficulty is the number of constraints.

    Example: webtraj tasks generate --site hotels --n 5 --llm local --out tasks.jsonl
    """
    import asyncio

    from rich.table import Table

    from webtraj.generate.levels import parse_levels
    from webtraj.generate.pipeline import generate_tasks
    from webtraj.generate.similarity import DEFAULT_THRESHOLDS, make_embedder
    from webtraj.generate.sites import site_info
    from webtraj.llm import LLMClient
    from webtraj.model import InputError

    if constraints not in ("auto", "model", "extract"):
        raise fail(f"--constraints must be auto, model or extract, got {constraints!r}")
    try:
        info = site_info(site)
        lv = parse_levels(levels)
        client = LLMClient.from_cli(llm, no_cache=no_cache)
    except (InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    day = _today(today)
    known: list = []
    if existing is not None:
        known, errors = _load(existing)
        _report_bad(errors)
    try:
        emb, note = make_embedder(embedder)
    except (ImportError, ValueError) as exc:
        raise fail(str(exc)) from None
    if note:
        err_console.print(f"[yellow]note:[/] {esc(note)}", highlight=False)
    thr = threshold if threshold is not None else DEFAULT_THRESHOLDS[emb.name]
    opts = GenerateOptions(per_level=n, levels=lv, today=day, seed=seed,
                           max_rounds=max_rounds, batch=batch, constraints=constraints,
                           strict_dates=strict_dates)

    async def go():  # type: ignore[no-untyped-def]
        async with client:
            return await generate_tasks(client, info, opts, embedder=emb, threshold=thr,
                                        existing=known, notes=[note] if note else [])

    with console.status(esc(f"asking {client.spec.model} for tasks for {info.name}")):
        tasks, rep = asyncio.run(go())
    written = _write_tasks(out, tasks)
    t = Table(title=esc(f"tasks for {info.key} (today {day.isoformat()})"))
    for col in ("level", "kept", "wanted", "mean constraints"):
        t.add_column(col, justify="left" if col == "level" else "right")
    for name in rep.levels:
        t.add_row(name, str(rep.accepted.get(name, 0)), str(n),
                  f"{rep.mean_constraints[name]:.2f}" if name in rep.mean_constraints else "-")
    console.print(t)
    if rep.rejected:
        r = Table(title="rejected proposals")
        r.add_column("reason")
        r.add_column("count", justify="right")
        for reason, count in rep.rejected.items():
            r.add_row(esc(reason), str(count))
        console.print(r)
    console.print(f"wrote {written} tasks to {esc(out)}: {rep.proposals} proposals from "
                  f"{rep.calls} calls in {rep.rounds} rounds, {rep.total_rejected} rejected "
                  f"(of which {rep.unparseable_replies} unparseable replies, "
                  f"{rep.failed_calls} failed calls), {rep.dates_rewritten} dates rewritten; "
                  f"duplicates by {esc(rep.embedder)} at {rep.threshold:g}", highlight=False)
    short = [name for name in rep.levels if rep.accepted.get(name, 0) < n]
    if short:
        err_console.print(f"[yellow]warning:[/] fewer than {n} tasks for: {', '.join(short)} "
                          "(raise --max-rounds or check the rejections)", highlight=False)
    _write_report(report, rep)
    if rep.calls and rep.failed_calls == rep.calls:
        raise fail("every model call failed", code=1)


@app.command("constraints")
def constraints_cmd(
    tasks: Path = typer.Option(..., "--tasks", help="Task file (JSONL or JSON list)."),
    out: Path = typer.Option(..., "--out", help="Where to write the tasks (JSONL)."),
    llm: str = llm_option("extracting the constraints"),
    drop_failed: bool = typer.Option(False, "--drop-failed",
                                     help="Leave out tasks whose extraction failed (default: "
                                          "keep them without constraints)."),
    report: Path = typer.Option(None, "--report", help="Also write the report (JSON)."),
    no_cache: bool = no_cache_option(),
) -> None:
    """Extract constraints (name, value, type; made_selection when the task asks for one
    listing and does not say "search") for tasks that have none; others pass unchanged.

    Example: webtraj tasks constraints --tasks tasks.jsonl --llm local --out with-constraints.jsonl
    """
    import asyncio

    from rich.progress import Progress

    from webtraj.generate.constraints import attach_constraints
    from webtraj.llm import LLMClient
    from webtraj.model import InputError

    try:
        client = LLMClient.from_cli(llm, no_cache=no_cache)
    except (InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    loaded, errors = _load(tasks)
    _report_bad(errors)
    todo = sum(1 for t in loaded if not t.constraints)

    with Progress(console=err_console, transient=True) as progress:
        bar = progress.add_task("extracting constraints", total=todo)

        async def go():  # type: ignore[no-untyped-def]
            async with client:
                return await attach_constraints(
                    client, loaded, on_done=lambda: progress.advance(bar))

        new, rep = asyncio.run(go())
    rep = rep.model_copy(update={"bad_records": len(errors),
                                 "errors": tuple(str(e) for e in errors)})
    failed = {f.task_id for f in rep.failures}
    keep = [t for t in new if not (drop_failed and t.task_id in failed)]
    n = _write_tasks(out, keep)
    for f in rep.failures[:5]:
        err_console.print(f"[yellow]no constraints:[/] {esc(f.task_id)}: {esc(f.reason)}",
                          highlight=False)
    console.print(f"wrote {n} tasks to {esc(out)}: {rep.extracted} given constraints, "
                  f"{rep.had_constraints} had them, {rep.failed} failed"
                  f"{' (left out)' if drop_failed else ' (kept without)'}, "
                  f"{len(errors)} bad records skipped", highlight=False)
    _write_report(report, rep)


@app.command("from-demos")
def from_demos(
    run: Path = typer.Argument(..., help="Run directory of recorded demonstrations."),
    out: Path = typer.Option(..., "--out", help="Where to write the tasks (JSONL)."),
    agent: str = typer.Option("human", "--agent", help="Whose trajectories become tasks."),
) -> None:
    """Turn recorded demonstrations into tasks whose reference actions are what the person
    did, so `--agent replay` repeats them; sandbox tasks keep their site, date and seed.

    Example: webtraj tasks from-demos runs/demos --out demo-tasks.jsonl
    """
    from webtraj.cli.export import run_trajectories
    from webtraj.record.demos import demo_tasks

    info, trajs = run_trajectories(run, agent)
    tasks, skipped = demo_tasks(trajs, info)
    _report_bad(skipped)
    if not tasks:
        raise fail(f"{run}: no finished recording of agent {agent!r} to turn into a task")
    n = _write_tasks(out, tasks)
    console.print(f"wrote {n} task(s) to {esc(out)}", highlight=False)
