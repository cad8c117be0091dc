"""`webtraj eval ...`: score trajectories and agent logs.

The group stays open for other sub-commands (e.g. re-scoring stored runs).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from webtraj.cli.common import command_line, console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.progress import JobProgress
from webtraj.model import InputError
from webtraj.model.jsonfile import read_json

app = typer.Typer(help="Evaluate trajectories and agent logs.\n\nExample: webtraj eval --run "
                  "runs/heur --evaluator constraints:judge=rule", no_args_is_help=True)


def _read_json(path: Path, what: str) -> object:
    try:
        return read_json(path, what=what)
    except InputError as exc:
        raise fail(f"{exc} (reading {what})") from None


@app.callback(invoke_without_command=True)
def rescore_run(
    ctx: typer.Context,
    run: Path = typer.Option(None, "--run", help="Re-score this stored run."),
    evaluator: list[str] = typer.Option(None, "--evaluator", help="NAME[:key=value,...], "
                                        "repeatable; default: each task's own evaluators."),
    llm: str = llm_option("the model-based evaluators"),
    no_cache: bool = no_cache_option(),
    site: str = typer.Option(None, "--site", help="Only trajectories of this site."),
    prices: Path = typer.Option(None, "--prices", help="JSON or YAML file of model prices "
                                "(USD per million tokens, by model name) for a cost estimate."),
) -> None:
    """Score stored trajectories again; new scores are kept beside the old ones (reports use
    the newest). Cached model calls make a repeated re-score free.

    Example: webtraj eval --run runs/demo/heuristic --evaluator constraints:judge=rule,steps=all
    """
    if ctx.invoked_subcommand is not None:
        return
    if run is None:
        console.print(ctx.get_help())
        raise typer.Exit(2)
    from webtraj.evaluate.registry import check as check_evaluator
    from webtraj.evaluate.run_scoring import RunEnvironments, score_run
    from webtraj.evaluate.spec import parse_evaluator_spec
    from webtraj.llm.usage import merge_run_usage
    from webtraj.report.html import write_report
    from webtraj.report.metrics import run_metrics
    from webtraj.report.tables import metrics_table, usage_of
    from webtraj.report.usage import load_prices
    from webtraj.store import RunStore
    from webtraj.store.queries import IndexReader

    try:
        price_table = load_prices(prices) if prices else None
        configs = [parse_evaluator_spec(e) for e in evaluator] if evaluator else None
        for i, config in enumerate(configs or ()):
            check_evaluator(config, record=f"--evaluator {i + 1}")
        store = RunStore.open(run, write=True, command=command_line())
    except InputError as exc:
        raise fail(str(exc)) from None
    with store:
        envs = RunEnvironments(store.info, llm=llm, no_cache=no_cache)
        with JobProgress(err_console, "scoring") as progress:
            progress.start(len(store))
            result = score_run(store, configs, envs, site=site,
                               on_done=lambda tid, scores: progress.advance())
        usage = envs.llm.usage() if envs.llm is not None else None
        if usage is not None and usage.models:
            store.update_info(usage=merge_run_usage(store.info.usage, usage, key="judges"))
        write_report(store)  # the static report shows the new scores
        with IndexReader.open(store.root) as index:
            metrics = run_metrics(index)
    for c in result.corrupt:
        err_console.print(f"[red]skipped corrupt trajectory:[/] {esc(c.error)}", highlight=False)
    console.print(f"scored {result.trajectories} trajectories: {result.scores} scores, "
                  f"{result.unscored} unscored, {result.errors} errors, "
                  f"{len(result.corrupt)} corrupt skipped")
    console.print(metrics_table(metrics, title=f"metrics ({esc(run.name)})"))
    table = usage_of(usage, "judges", price_table) if usage is not None else None
    if table is not None:
        console.print(table)


def _task_ids(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [t.strip() for v in values for t in v.split(",") if t.strip()]


@app.command("webarena-verified")
def webarena_verified(
    dataset: Path = typer.Option(None, "--dataset", help="WebArena-Verified tasks JSON (a "
                                 "list); default: the installed webarena-verified package's."),
    logs: Path = typer.Option(..., "--logs", help="Folder of <task_id>/network.har and "
                              "<task_id>/agent_response.json."),
    site_urls: Path = typer.Option(None, "--site-urls", help="JSON mapping sites or "
                                   "placeholders (\"shopping\" or \"__SHOPPING__\") to base "
                                   "URLs; default: LOGS/site_urls.json (written by `webtraj "
                                   "export webarena-verified`)."),
    task_ids: list[str] = typer.Option(None, "--task-ids", help="Only these task ids "
                                       "(repeat or comma-separate); default: every log folder."),
    out: Path = typer.Option(None, "--out", help="Results JSONL, one line per task (default: "
                             "none, the table only)."),
) -> None:
    """Score WebArena-Verified agent logs with the tasks' own evaluators.

    Each output line is {"task_id", "score", "status", "evaluators": [{"name", "score",
    "status", "assertions"}]}; a task that cannot be evaluated gets status "error" and no
    score, and the batch goes on.

    Example: webtraj eval webarena-verified --logs submission --out results.jsonl
    """
    from webtraj.evaluate.webarena_verified import SiteUrls, TaskVerdict, evaluate_log_dir
    from webtraj.formats.local_files import LocalFiles

    if dataset is not None:
        data = _read_json(dataset, "the dataset")
        if not isinstance(data, list):
            raise fail(f"{dataset}: expected a JSON list of tasks")
        source = str(dataset)
    else:
        from webtraj.formats.webarena_verified import package_dataset_path, package_raw_tasks

        try:
            data = package_raw_tasks("full")
            source = (f"the installed webarena-verified package's dataset "
                      f"({package_dataset_path()})")
        except InputError as exc:
            raise fail(f"{exc} (or give --dataset)") from None
    tasks = {str(t.get("task_id")): t for t in data if isinstance(t, dict)}
    if site_urls is None:
        site_urls = logs / "site_urls.json"
        if not site_urls.is_file():
            raise fail(f"{logs}: no site_urls.json in it; give --site-urls FILE")
    try:
        urls = SiteUrls.from_obj(_read_json(site_urls, "the site URL map"), file=str(site_urls))
    except InputError as exc:
        raise fail(str(exc)) from None
    if not logs.is_dir():
        raise fail(f"{logs}: not a folder")
    wanted = _task_ids(task_ids)
    if wanted is None:
        wanted = sorted((p.name for p in logs.iterdir() if p.is_dir()),
                        key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s))
        if not wanted:
            raise fail(f"{logs}: no task log folders (<task_id>/network.har, "
                       "agent_response.json) in it")
    err_console.print(f"tasks from {esc(source)}", highlight=False)
    # Logs are read only inside --logs: a task folder or file that links out is an error.
    files = LocalFiles([logs])
    counts = {"success": 0, "failure": 0, "error": 0}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp") if out is not None else Path(os.devnull)
    with tmp.open("wb") as fh, Progress(
        TextColumn("[bold]webarena-verified"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err_console, transient=True,
    ) as progress:
        bar = progress.add_task("eval", total=len(wanted))
        for tid in wanted:
            task = tasks.get(tid)
            if task is None:
                verdict = TaskVerdict.failed(tid, f"no task with id {tid} in {source}")
            else:
                try:
                    verdict = evaluate_log_dir(task, logs / tid, site_urls=urls, files=files)
                except Exception as exc:  # noqa: BLE001 - one bad task never stops the batch
                    verdict = TaskVerdict.failed(tid, f"unexpected {type(exc).__name__}: {exc}")
            counts[verdict.status.value] = counts.get(verdict.status.value, 0) + 1
            if verdict.error:
                err_console.print(f"[yellow]task {esc(tid)}:[/] {esc(verdict.error)}",
                                  highlight=False)
            fh.write(orjson.dumps(verdict.to_line()) + b"\n")
            progress.advance(bar)
    if out is not None:
        tmp.replace(out)
    table = Table(title=f"WebArena-Verified: {len(wanted)} task(s)")
    for col in ("tasks", "success", "failure", "error", "success rate (Wilson 95%)"):
        table.add_column(col, justify="right")
    scored = counts["success"] + counts["failure"]
    from webtraj.report.metrics import ci_text

    rate = (f"{counts['success'] / scored:.3f}{ci_text(counts['success'] / scored, scored)}"
            if scored else "-")
    table.add_row(str(len(wanted)), str(counts["success"]), str(counts["failure"]),
                  str(counts["error"]), rate)
    console.print(table)
    if out is not None:
        console.print(f"wrote {esc(out)}", highlight=False)
