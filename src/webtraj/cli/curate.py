"""`webtraj curate`: turn a scored run into a fine-tuning dataset (the constraint-based
evaluation paper, §2.2)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from webtraj.cli.common import console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.run_settings import setting
from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation_job import CurateRun
from webtraj.model.errors import require_extra

if TYPE_CHECKING:
    from webtraj.curate.stats import CurationStats

app = typer.Typer(
    help="Curate fine-tuning data from a scored run: per-step CSR -> smallest best prefix -> "
    "valid stops and hindsight relabeling -> optional two-judge filter -> chat JSONL + "
    "Parquet split by task, with statistics.\n\nExample: webtraj curate --run runs/heur "
    "--out data/heur --seed 0",
    no_args_is_help=True)


@app.callback(invoke_without_command=True)
def curate(
    ctx: typer.Context,
    run: Path = typer.Option(None, "--run", help="The run directory to curate."),  # noqa: B008
    judge: str = typer.Option(None, "--judge", help="Constraint judge whose per-step CSR "
                              "decides: oracle | rule | llm | vlm, or miniwob (the page's "
                              "reward; default: oracle for sandbox runs, miniwob for MiniWoB++ "
                              "runs, else rule)."),
    second_judge: str = setting("second_judge", model=CurateSettings),
    relabel: str = setting("relabel", model=CurateSettings),
    llm: str = llm_option("--relabel llm and the model judges"),
    no_cache: bool = no_cache_option(),
    seed: int = setting("seed", model=CurateSettings),
    val_fraction: float = setting("val_fraction", model=CurateRun),
    executor: str = setting("executor", model=CurateRun),
    ray_address: str = setting("ray_address", model=CurateRun),
    chunk_size: int = setting("chunk_size", model=CurateRun),
    workers: int = setting("num_cpus", "--workers", model=CurateRun),
    no_rescore: bool = setting("rescore", "--no-rescore", model=CurateRun, negate=True),
    prompt_option: list[str] = typer.Option(  # noqa: B008
        None, "--prompt-option", help="key=value: build the records' prompts as the llm agent "
        "with this option does (history_window, tree_tokens, few_shot, action_set, "
        "observation, image_max_side; default: the run's own llm agent options, else that "
        "agent's defaults). With an image "
        "observation the records carry the images in TRL's vision form (docs/curating.md). "
        "Recorded in stats.json under prompt."),
    out: Path = typer.Option(None, "--out", help="Output folder for the dataset."),  # noqa: B008
) -> None:
    """Per-step CSR -> smallest best prefix -> valid stops and hindsight relabeling ->
    optional two-judge filter -> chat JSONL + Parquet, split by task, with statistics.

    Example: webtraj curate --run runs/heur --out data/heur --seed 0
    """
    if ctx.invoked_subcommand is not None:
        return
    if run is None or out is None:
        console.print(ctx.get_help())
        raise typer.Exit(2)
    require_extra("train", "pyarrow", feature="webtraj curate (it writes Parquet)")
    from webtraj.agents.registry import recorded_prompt
    from webtraj.curate.settings import JUDGES, curve_evaluator
    from webtraj.curate.stats import stats_table
    from webtraj.execute.curation import curate_run, default_judge, ensure_curves
    from webtraj.model import InputError
    from webtraj.store import RunStore
    from webtraj.store.reader import missing_curves

    if executor not in ("local", "ray"):
        raise fail(f"--executor must be local or ray, got {executor!r}")
    if relabel not in ("rule", "llm", "none"):
        raise fail(f"--relabel must be rule, llm or none, got {relabel!r}")
    if relabel == "llm" and not llm:
        raise fail("--relabel llm needs --llm base_url=...,model=...")
    try:
        with RunStore.open(run) as store:  # read only: a live writer is not disturbed
            info = store.info
            corrupt = len(store.corrupt)
    except InputError as exc:
        raise fail(str(exc)) from None
    judge = judge or default_judge(info)
    for name in filter(None, (judge, second_judge)):
        if name not in JUDGES:
            raise fail(f"unknown judge {name!r}; choose from {', '.join(JUDGES)}")
    if second_judge == judge:
        raise fail("--second-judge must differ from --judge")
    try:
        recorded = (recorded_prompt(info.settings.agent, info.settings.agent_options)
                    if info.settings is not None else None)  # imported runs record none
    except InputError as exc:
        raise fail(f"the run's agent options: {exc}") from None
    prompt = _prompt_options(prompt_option or [], recorded)
    settings = CurateSettings(judge=judge, second_judge=second_judge, relabel=relabel,
                              llm=llm, no_cache=no_cache, seed=seed, prompt=prompt)
    rescored = 0
    if not no_rescore:
        for name in filter(None, (judge, second_judge)):
            missing = missing_curves(run, curve_evaluator(name))
            if missing and name in ("llm", "vlm") and not llm:
                raise fail(f"{len(missing)} trajectories have no per-step {name} scores and "
                           "the judge needs a model: pass --llm, or --no-rescore")
            if missing and name == "oracle" and default_judge(info) != "oracle":
                raise fail("the oracle judge needs a sandbox run (run.json sandbox and "
                           "site_urls)")
        with Progress(TextColumn("[bold]scoring missing curves"), BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(), console=err_console,
                      transient=True) as progress:
            bar = progress.add_task("rescore", total=None)
            rescored = ensure_curves(run, settings, llm=llm, on_progress=lambda d, t: (
                progress.update(bar, completed=d, total=t)))
    job = CurateRun(run=run, out=out, settings=settings, val_fraction=val_fraction,
                    executor=executor, chunk_size=chunk_size, rescore=not no_rescore,
                    ray_address=ray_address, num_cpus=workers)
    with Progress(TextColumn("[bold]curating"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as progress:
        bar = progress.add_task("chunks", total=None)
        result = curate_run(job, rescored=rescored, on_chunk=lambda d, t: progress.update(
            bar, completed=d, total=t))
    console.print(stats_table(result.stats))
    if corrupt:
        err_console.print(f"[yellow]{corrupt} unreadable trajectory folder(s) skipped[/]")
    if not result.stats.steps_kept:
        raise fail(kept_nothing(result.stats, corrupt), code=1)
    console.print(f"wrote {esc(out)}: train.jsonl, validation.jsonl, train.parquet, "
                  "validation.parquet, tasks.jsonl, stats.json")


def _prompt_options(pairs: list[str], recorded=None):
    """--prompt-option pairs as the prompt builder's options, over the prompt the run's agent
    was sent (`recorded`: an llm agent's own options, its observation included); a bad one
    names the option."""
    from pydantic import ValidationError

    from webtraj.agents.prompt_builder import PromptOptions
    from webtraj.model import InputError
    from webtraj.model.errors import from_validation_error
    from webtraj.model.plugins import parse_option_pairs

    try:
        base = ({name: getattr(recorded, name) for name in PromptOptions.model_fields}
                if recorded is not None else {})
        return PromptOptions.model_validate({**base, **parse_option_pairs(pairs)})
    except InputError as exc:
        raise fail(f"--prompt-option: {exc}") from None
    except ValidationError as exc:
        raise fail(f"--prompt-option: {from_validation_error(exc)}") from None


def kept_nothing(stats: CurationStats, corrupt: int) -> str:
    """Why a curation kept no record: the trajectories' drops by reason."""
    reasons = sorted(stats.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    if corrupt:
        reasons.append(("unreadable trajectory folder", corrupt))
    if stats.relabel_failed and "relabel_failed" not in stats.dropped:
        reasons.append(("relabel failed", stats.relabel_failed))
    if not stats.trajectories and not corrupt:
        why = "the run has no trajectory"
    else:
        why = (f"of {stats.trajectories} trajectories, none gave a record: dropped "
               + ", ".join(f"{n} {reason}" for reason, n in reasons)) if reasons else \
            f"of {stats.trajectories} trajectories, none gave a record"
    return (f"curation kept nothing ({stats.judge} judge): {why}. stats.json has the "
            "counts; `webtraj runs show` shows the run's errors and scores")
