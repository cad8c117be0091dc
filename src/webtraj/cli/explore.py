"""`webtraj explore`: explore the sandbox without tasks, label what was done in hindsight."""

from __future__ import annotations

from pathlib import Path

import typer

from webtraj.cli.common import command_line, console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option


def explore(
    suite: str = typer.Option("booking", "--suite", help="Suite whose sites are explored "
                              "(its oracle labels the episodes): booking."),
    episodes: int = typer.Option(10, "--episodes", min=1, help="Episodes to explore (the "
                                 "sites take turns)."),
    sites: str = typer.Option(None, "--sites", help="Comma-separated sandbox sites (default "
                              "all five)."),
    policy: str = typer.Option("persona", "--policy", help="persona (no model) or llm."),
    labeler: str = typer.Option("rule", "--labeler", help="How a label is worded: rule, or "
                                "llm (a model's rewrite, checked to state exactly the "
                                "constraints)."),
    seed: int = typer.Option(0, "--seed", help="Seed of personas and choices: the same seed "
                             "gives the same episodes."),
    today: str = typer.Option(None, "--today", help="Sandbox date, YYYY-MM-DD (default: "
                              "today)."),
    interval: int = typer.Option(3, "--interval", min=1, help="Actions between labeled "
                                 "prefixes (and pruning checks)."),
    patience: int = typer.Option(2, "--patience", min=1, help="Checks in a row without a new "
                                 "sub-task before an episode is pruned."),
    max_steps: int = typer.Option(30, "--max-steps", min=1, help="Steps per episode at most."),
    workers: int = typer.Option(1, "--workers", min=1, help="Browser worker processes."),
    embedder: str = typer.Option("auto", "--embedder", help="Near-duplicate instructions by "
                                 "auto, minilm or ngram (as `webtraj tasks generate`)."),
    threshold: float = typer.Option(None, "--threshold", help="Similarity above which an "
                                    "instruction is a near-duplicate (default per embedder)."),
    no_replay: bool = typer.Option(False, "--no-replay", help="Do not replay the labeled tasks "
                                   "into OUT/labeled."),
    llm: str = llm_option("the llm explorer and labeler"),
    no_cache: bool = no_cache_option(),
    out: Path = typer.Option(..., "--out", help="Folder: episodes/ (the exploration run), "
                             "tasks.jsonl (the labeled tasks), labeled/ (their replay run), "
                             "explore_report.json."),
) -> None:
    """Explore sites without a task, then label what was done as tasks the oracle verifies.

    Example: webtraj explore --suite booking --episodes 20 --workers 2 --out runs/explore

    Then: webtraj run --tasks runs/explore/tasks.jsonl --agent heuristic --out runs/h
    """
    from webtraj.execute.explore import ExploreOptions
    from webtraj.execute.explore import explore as run_explore
    from webtraj.model import InputError

    try:
        opts = ExploreOptions(
            suite=suite, episodes=episodes, policy=policy, labeler=labeler, seed=seed,
            today=today, interval=interval, patience=patience, max_steps=max_steps,
            workers=workers, llm=llm, no_cache=no_cache, embedder=embedder,
            threshold=threshold, replay=not no_replay,
            sites=tuple(s.strip() for s in (sites or "").split(",") if s.strip()))
    except ValueError as exc:
        raise fail(str(exc)) from None
    try:
        report = run_explore(opts, out, command=command_line(),
                             on_stage=lambda m: err_console.print(esc(m), highlight=False))
    except (InputError, ValueError) as exc:
        raise fail(str(exc)) from None
    share = report.replay_share
    console.print(
        f"{report.episodes} episodes ({report.pruned} pruned, {report.episode_errors} errors), "
        f"{report.prefixes} prefixes labeled, {report.kept} tasks kept "
        f"({report.distinct_intents} distinct intents, {report.distinct_combinations} "
        f"constraint combinations); rejected: "
        + (", ".join(f"{k} {v}" for k, v in report.rejected.items()) or "none")
        + (f"; replay CSR 1: {report.replay_csr1}/{report.replayed} ({share:.0%})"
           if share is not None else ""), highlight=False)
    console.print(f"tasks: {esc(out / 'tasks.jsonl')}", highlight=False)
