"""`webtraj explore`: explore the sandbox without tasks, label what was done in hindsight."""

from __future__ import annotations

from pathlib import Path

import typer

from webtraj.cli.common import command_line, console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.run_settings import setting
from webtraj.execute.explore_options import ExploreOptions


def explore(
    suite: str = setting("suite", model=ExploreOptions),
    episodes: int = setting("episodes", model=ExploreOptions),
    sites: str = setting("sites", model=ExploreOptions),
    policy: str = setting("policy", model=ExploreOptions),
    labeler: str = setting("labeler", model=ExploreOptions),
    seed: int = setting("seed", model=ExploreOptions),
    today: str = setting("today", model=ExploreOptions),
    interval: int = setting("interval", model=ExploreOptions),
    patience: int = setting("patience", model=ExploreOptions),
    max_steps: int = setting("max_steps", model=ExploreOptions),
    workers: int = setting("workers", model=ExploreOptions),
    embedder: str = setting("embedder", model=ExploreOptions),
    threshold: float = setting("threshold", model=ExploreOptions),
    no_replay: bool = setting("replay", "--no-replay", model=ExploreOptions, negate=True),
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
