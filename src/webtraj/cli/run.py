"""`webtraj run`: the main job."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from webtraj.cli.common import console, err_console, fail


def run(
    suite: str = typer.Option(None, "--suite", help="Built-in task suite (booking)."),
    tasks: Path = typer.Option(None, "--tasks", help="Task file (JSONL or JSON list)."),
    agent: str = typer.Option(..., "--agent", help="replay | heuristic | llm | mindact"),
    llm: str = typer.Option(None, "--llm", help="Model spec: base_url=...,model=...[,k=v]"),
    trials: int = typer.Option(1, "--trials", min=1),
    max_steps: int = typer.Option(30, "--max-steps", min=1),
    workers: int = typer.Option(1, "--workers", min=1, help="Parallel browsers."),
    executor: str = typer.Option("local", "--executor", help="local | ray"),
    ray_address: str = typer.Option(None, "--ray-address"),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds per episode."),
    task_ids: str = typer.Option(None, "--task-ids", help="Comma-separated task ids."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N tasks."),
    today: str = typer.Option(None, "--today", help="Sandbox 'today' (YYYY-MM-DD)."),
    seed: int = typer.Option(0, "--seed"),
    no_eval: bool = typer.Option(False, "--no-eval", help="Store trajectories only."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the LLM cache."),
    allow: list[str] = typer.Option(None, "--allow", help="Another origin the browser may "
                                    "reach (repeatable); each task's start origin always is."),
    sandbox_host: str = typer.Option("127.0.0.1", "--sandbox-host", help="Address to serve "
                                     "the sandbox sites on: one a Ray cluster's other machines "
                                     "reach (default loopback: this machine only)."),
    out: Path = typer.Option(..., "--out", help="Run directory (re-run to resume)."),
) -> None:
    """Run an agent on tasks in a real browser, record, score and report.

    Example: webtraj run --suite booking --agent heuristic --workers 2 --out runs/heur
    """
    from webtraj.execute.run import EpisodeEvent, RunConfig, RunPlan, execute_run
    from webtraj.model import InputError
    from webtraj.report.html import write_report
    from webtraj.report.tables import outcome_table

    try:
        config = RunConfig(
            suite=suite, tasks_file=str(tasks) if tasks else None, agent=agent, llm=llm,
            trials=trials, max_steps=max_steps, workers=workers, executor=executor,
            ray_address=ray_address, timeout_s=timeout, limit=limit, today=today, seed=seed,
            task_ids=tuple(t for t in (task_ids or "").split(",") if t), evaluate=not no_eval,
            no_cache=no_cache, allow_origins=tuple(allow or ()), sandbox_host=sandbox_host)
    except ValueError as exc:
        raise fail(str(exc)) from None
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
                        TimeElapsedColumn(), console=err_console)
    state = {"done": 0, "errors": 0, "success": 0, "scored": 0, "bar": None}

    def on_plan(plan: RunPlan) -> None:
        for e in plan.task_errors:
            err_console.print(f"[yellow]skipped task:[/] {e}", highlight=False)
        if plan.skipped:
            err_console.print(f"resuming: {plan.skipped} episode(s) already done")
        state["bar"] = progress.add_task("episodes", total=len(plan.specs), stats="")

    def on_episode(ev: EpisodeEvent) -> None:
        state["done"] += 1
        state["errors"] += ev.error is not None
        csr = [v for k, v in ev.scores.items() if k.startswith("constraints")]
        if csr and csr[0] is not None:
            state["scored"] += 1
            state["success"] += csr[0] >= 1.0
        sr = f"SR {state['success'] / state['scored']:.2f}" if state["scored"] else "SR -"
        progress.update(state["bar"], advance=1, stats=f"{sr}  errors {state['errors']}")

    command = "webtraj " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        with progress:
            store = execute_run(config, out, command=command, on_plan=on_plan,
                                on_episode=on_episode)
    except (InputError, ValueError, RuntimeError) as exc:
        raise fail(str(exc)) from None
    with store:
        console.print(outcome_table(store))
        report = write_report(store)
    console.print(f"run: {out}   report: {report}")
