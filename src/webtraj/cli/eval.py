"""`webtraj eval ...`: score trajectories and agent logs.

The group stays open for other sub-commands (e.g. re-scoring stored runs).
"""

from __future__ import annotations

from pathlib import Path

import typer

from webtraj.cli.common import command_line, console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.progress import JobProgress
from webtraj.model import InputError

app = typer.Typer(help="Evaluate trajectories and agent logs.\n\nExample: webtraj eval --run "
                  "runs/heur --evaluator constraints:judge=rule", no_args_is_help=True)


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
