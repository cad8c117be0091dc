"""`webtraj run`: the main job."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.cli.common import (
    EPISODE_ERRORS,
    UsageError,
    command_line,
    console,
    err_console,
    esc,
    fail,
)
from webtraj.cli.progress import JobProgress
from webtraj.cli.run_settings import given_options, setting, with_suite_options
from webtraj.model.errors import require_extra

if TYPE_CHECKING:
    from webtraj.execute.run import EpisodeEvent, RunPlan


# The llm agent's `action_set` prompt option, as its model describes it.
_ACTION_SET_HELP = (f"ids | coords | both: {PromptOptions.model_fields['action_set'].description}"
                    " (the llm agent's `action_set` option).")

@with_suite_options("run")
def run(
    suite: str = setting("suite"),
    tasks_file: Path = setting("tasks_file", "--tasks"),
    agent: str = setting("agent"),
    agent_option: list[str] = typer.Option(None, "--agent-option", help="key=value for the "
                                           "agent's options (repeatable; JSON values parsed)."),
    agent_options_file: Path = typer.Option(None, "--agent-options", help="JSON or YAML file "
                                            "of agent options (--agent-option wins)."),
    action_set: str = typer.Option(None, "--action-set", help=_ACTION_SET_HELP),
    evaluators: list[str] = setting("evaluators", "--evaluator", form="repeatable"),
    llm: str = setting("llm"),
    trials: int = setting("trials"),
    max_steps: int = setting("max_steps"),
    workers: int = setting("workers"),
    episodes_per_worker: int = setting("episodes_per_worker"),
    executor: str = setting("executor"),
    ray_address: str = setting("ray_address"),
    timeout_s: float = setting("timeout_s", "--timeout"),
    task_ids: str = setting("task_ids", form="comma-separated"),
    limit: int = setting("limit"),
    today: str = setting("today"),
    seed: int = setting("seed"),
    no_evaluate: bool = setting("evaluate", "--no-eval", negate=True),
    no_screenshots: bool = setting("screenshots", "--no-screenshots", negate=True),
    no_cache: bool = setting("no_cache"),
    allow_origins: list[str] = setting("allow_origins", "--allow", form="repeatable"),
    sandbox_host: str = setting("sandbox_host"),
    screenshot_format: str = setting("screenshot_format"),
    screenshot_quality: int = setting("screenshot_quality"),
    set_of_marks: bool = setting("set_of_marks"),
    max_download_bytes: int = setting("max_download_bytes"),
    max_episode_download_bytes: int = setting("max_episode_download_bytes",
                                              "--episode-downloads"),
    prices: Path = typer.Option(None, "--prices", help="JSON or YAML file of model prices "
                                "(USD per million tokens, by model name) for the cost estimate "
                                "at the end."),
    reset_cmds: list[str] = setting("reset_cmds", "--reset-cmd", form="SITE=COMMAND, "
                                    "repeatable"),
    reset_wait_s: float = setting("reset_wait_s", "--reset-wait"),
    out: Path = typer.Option(..., "--out", help="Run directory. Running again with the same "
                             "settings resumes it; other settings (agent and options, model and "
                             "its parameters, "
                             "--max-steps, evaluators, suite or tasks file, sandbox) are "
                             "refused, naming the differences."),
    new: bool = typer.Option(False, "--new", help="Start a new run in --out even if it holds "
                             "one made with other settings (that one is kept, renamed to "
                             "OUT.replaced-RUNID)."),
    **suite_options: object,
) -> None:
    """Run an agent on tasks in a real browser, record, score and report.

    Example: webtraj run --suite booking --agent heuristic --workers 2 --out runs/heur

    Example: webtraj run --suite miniwob --task-ids click-button,enter-text --seeds 0-4
    --agent my_pkg.agents:MyAgent --agent-option temperature=0 --out runs/mine

    Example: webtraj run --suite webarena-verified --subset hard --site-urls urls.json
    --agent my_pkg.agents:MyAgent --out runs/wav

    One writer per run: while a command writes a run (run, record, eval --run, judges
    compare, curate, import), another one writing it is refused (exit 2), naming the process.
    """
    from webtraj.agents.protocol import AgentError
    from webtraj.evaluate.spec import parse_evaluator_spec
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.model import InputError
    from webtraj.model.plugins import load_options_file, parse_option_pairs
    from webtraj.report.html import write_report
    from webtraj.report.tables import run_tables
    from webtraj.report.usage import load_prices
    from webtraj.sites.sandbox import reachable_sandbox_host

    try:
        reachable_sandbox_host(sandbox_host)
    except InputError as exc:
        raise fail(f"--sandbox-host {sandbox_host}: {exc.message}") from None
    try:
        price_table = load_prices(prices) if prices else None
    except InputError as exc:
        raise fail(str(exc)) from None
    try:
        options = load_options_file(agent_options_file) if agent_options_file else {}
        options.update(parse_option_pairs(agent_option or []))
        if action_set is not None:
            from webtraj.model.action import ActionSet

            if action_set not in {a.value for a in ActionSet}:
                raise ValueError(f"--action-set {action_set!r}: expected ids, coords or both")
            options["action_set"] = action_set
        config = RunConfig(
            suite=suite, tasks_file=str(tasks_file) if tasks_file else None, agent=agent,
            llm=llm, trials=trials, max_steps=max_steps, workers=workers, executor=executor,
            episodes_per_worker=episodes_per_worker, ray_address=ray_address,
            timeout_s=timeout_s, limit=limit, today=today, seed=seed,
            task_ids=tuple(t for t in (task_ids or "").split(",") if t),
            evaluate=not no_evaluate, screenshots=not no_screenshots, no_cache=no_cache,
            allow_origins=tuple(allow_origins or ()), sandbox_host=sandbox_host,
            agent_options=options, screenshot_format=screenshot_format,
            screenshot_quality=screenshot_quality, set_of_marks=set_of_marks,
            max_download_bytes=max_download_bytes,
            max_episode_download_bytes=max_episode_download_bytes,
            suite_options=given_options(**suite_options),
            reset_cmds=_reset_cmds(reset_cmds or []), reset_wait_s=reset_wait_s,
            evaluators=tuple(parse_evaluator_spec(e) for e in evaluators or ()))
    except ValueError as exc:
        raise fail(str(exc)) from None
    if executor == "ray":
        require_extra("ray", feature="--executor ray")
    progress = JobProgress(err_console, "episodes")
    tally = _Tally()

    def on_plan(plan: RunPlan) -> None:
        for e in plan.task_errors:
            err_console.print(f"[yellow]skipped task:[/] {esc(e)}", highlight=False)
        for w in plan.warnings:
            err_console.print(f"[yellow]warning:[/] {esc(w)}", highlight=False)
        _check_task_ids(config.task_ids, plan)
        if plan.skipped:
            err_console.print(f"resuming: {plan.skipped} episode(s) already done")
        progress.start(len(plan.specs))

    def on_episode(ev: EpisodeEvent) -> None:
        progress.advance(tally.add(ev))

    command = command_line()
    try:
        with progress:
            store = execute_run(config, out, command=command, on_plan=on_plan,
                                on_episode=on_episode, new=new, on_set_aside=lambda p:
                                err_console.print(f"the earlier run is kept as {esc(p)}",
                                                  highlight=False))
    except (InputError, ValueError, AgentError) as exc:
        raise fail(str(exc)) from None
    except RuntimeError as exc:  # the run could not go on (not the user's input)
        raise fail(str(exc), code=1) from None
    with store:
        console.print(run_tables(store, price_table))
        report = write_report(store)
        rows = list(store.rows())
    console.print(f"run: {esc(out)}   report: {esc(report)}", highlight=False)
    errors = sum(1 for r in rows if r.error)
    if errors:
        # The last line says how many, and the exit code that the run is not whole.
        console.print(f"{errors} of {len(rows)} episodes ended in an error (never scored; "
                      f"running the same command again retries them): exit {EPISODE_ERRORS}",
                      highlight=False, soft_wrap=True)
        raise typer.Exit(EPISODE_ERRORS)


class _Tally:
    """The running headline of a run for its progress line: the success rate of the
    suite's headline value, named as the family ranked first names its rate (SR, success,
    pass), errors apart."""

    def __init__(self) -> None:
        self.errors = 0
        self.scored = 0
        self.success = 0
        self.label = "success"

    def add(self, ev: EpisodeEvent) -> str:
        from webtraj.evaluate.registry import family_of, headline_evaluator

        if ev.scores:
            family = family_of(headline_evaluator(list(ev.scores)) or "")
            self.label = next((m.label for m in family.metrics if m.is_rate), "success")
        if ev.error is None and ev.headline is not None:
            self.scored += 1
            self.success += ev.headline >= 1.0
        self.errors += ev.error is not None
        rate = f"{self.success / self.scored:.2f}" if self.scored else "-"
        return f"{self.label} {rate}  errors {self.errors}"


def _reset_cmds(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        site, sep, cmd = v.partition("=")
        if not sep or not site.strip() or not cmd.strip():
            raise ValueError(f"--reset-cmd {v!r}: expected SITE=COMMAND")
        out[site.strip().strip("_").lower()] = cmd.strip()
    return out


def _check_task_ids(task_ids: tuple[str, ...], plan: RunPlan) -> None:
    """--task-ids naming no task to run is a usage error; ids that name no task of the suite
    (the suite decides what an id names: MiniWoB++ task names name their instances) are a
    warning."""
    if not plan.tasks:
        if task_ids:
            raise UsageError("--task-ids names no task to run" + (
                f": {', '.join(plan.unknown_ids)} unknown" if plan.unknown_ids else
                " (every task it names was skipped, see above)"))
        raise UsageError("no task to run: every task record was skipped (see above)")
    if plan.unknown_ids:
        err_console.print(f"[yellow]warning:[/] {len(plan.unknown_ids)} of the --task-ids "
                          f"unknown: {esc(', '.join(plan.unknown_ids))}", highlight=False)
