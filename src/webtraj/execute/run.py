"""`webtraj run`: tasks × trials → episodes on an executor → stored, scored trajectories.

The run directory is the source of truth: re-running with the same --out skips finished
(task, trial) pairs, runs again the episodes that ended in an error, and scores what a crash
left unscored. The run's suite (`webtraj.execute.suites`) serves its sites; the run keeps the
site URLs (and a sandbox's `today` and `seed`) it started with (the ports are reused when
free; a trajectory made against other ports records its own).
Scoring runs beside the rollout (`ScoringStage`), never in the way of dispatch."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from webtraj.agents.protocol import Agent
from webtraj.agents.registry import make_agent
from webtraj.browser.config import EnvConfig
from webtraj.evaluate.registry import check as check_evaluator
from webtraj.evaluate.run_scoring import RunEnvironments, ScoringStage, unscored_trajectories
from webtraj.execute.episode import EpisodeSpec, error_trajectory
from webtraj.execute.inprocess import InProcessExecutor
from webtraj.execute.local import Artifacts
from webtraj.execute.resume import open_run_for, record_served_date, tasks_digest
from webtraj.execute.scratch import OwnedScratch
from webtraj.execute.site_lanes import Post, run_per_site
from webtraj.execute.site_reset import reset_sites
from webtraj.execute.suites import Suite, SuiteSession, suite_of_config
from webtraj.execute.worker import WorkerConfig
from webtraj.llm.usage import Usage, merge_run_usage
from webtraj.model import InputError, RunInfo, Score, Task, Termination, Trajectory
from webtraj.model.base import FrozenModel
from webtraj.model.run import ModelInfo, RunConfig, RunDefinition
from webtraj.store import RunStore

__all__ = ["EpisodeEvent", "RunConfig", "RunPlan", "execute_run"]



class EpisodeEvent(FrozenModel):
    """What the progress display needs after each episode (once it is scored)."""

    trajectory_id: str
    task_id: str
    error: str | None
    scores: dict[str, float | None]
    # The episode's success as its suite counts it (None: not scored yet or unscored).
    headline: float | None = None


class RunPlan(FrozenModel):
    tasks: tuple[Task, ...]
    specs: tuple[EpisodeSpec, ...]
    skipped: int
    task_errors: tuple[str, ...] = ()
    # What the user must know about how the tasks are served (a task file's sandbox task
    # without a date, and the date it got).
    warnings: tuple[str, ...] = ()
    # --task-ids that name no task of the suite.
    unknown_ids: tuple[str, ...] = ()
    # Trajectories of earlier sessions stored without their scores (scored now).
    rescoring: int = 0


def select_tasks(session: SuiteSession, suite: Suite, config: RunConfig
                 ) -> tuple[list[Task], list[str], list[str]]:
    """The tasks to run, the reason each task left out was left out, and the --task-ids that
    name no task of the suite (the suite decides what an id names)."""
    problems: list[str] = []
    tasks, unknown = session.tasks, list(session.unknown_ids)
    if config.task_ids and not session.selected:
        tasks, unknown = suite.select(tasks, config.task_ids)
    if config.task_ids and not tasks and unknown:
        raise InputError(f"--task-ids names no known task ({', '.join(unknown[:10])}); "
                         f"{len(session.tasks)} tasks are available", field="task_ids")
    runnable = []
    for t in tasks:
        if t.start_url:
            runnable.append(t)
        else:
            problems.append(f"task {t.task_id}: field 'start_url' is missing: an episode "
                            "needs a page to start on")
    return (runnable[: config.limit] if config.limit else runnable), problems, unknown


def _model_info(spec: str | None) -> ModelInfo | None:
    if not spec:
        return None
    from webtraj.llm.spec import resolve_spec

    return ModelInfo.model_validate(resolve_spec(spec).describe())


def execute_run(config: RunConfig, out: str | Path, *, command: str = "",
                on_plan: Callable[[RunPlan], None] | None = None,
                on_episode: Callable[[EpisodeEvent], None] | None = None,
                on_start: Callable[[EpisodeSpec, int], None] | None = None,
                agent: Agent | None = None, new: bool = False,
                on_set_aside: Callable[[Path], None] | None = None) -> RunStore:
    """Run (or resume) the episodes into `out`; returns the open store, which holds the
    run's lock until closed. An `agent` object (Python API) runs in this process; otherwise
    workers build `config.agent` themselves. A run at `out` made with other settings is
    refused (RunSettingsError) unless `new`, which sets it aside and starts a new one."""
    if (config.suite is None) == (config.tasks_file is None):
        raise ValueError("give exactly one of a suite or a tasks file")
    if agent is None:  # fail fast on a bad agent or option, before any browser starts
        agent_ = make_agent(config.agent, llm=config.llm, no_cache=True,
                            options=config.agent_options)
        if getattr(agent_, "needs_screenshots", False) and not config.screenshots:
            raise InputError(f"agent {config.agent!r} is sent each step's screenshot "
                             f"(its observation option): it cannot run with --no-screenshots",
                             field="--no-screenshots")
    for i, evaluator in enumerate(config.evaluators):
        check_evaluator(evaluator, record=f"--evaluator {i + 1}")
    suite = suite_of_config(config)
    suite.options(config)  # an option the suite does not take, before the run is opened
    out = Path(out)
    model = _model_info(config.llm)
    definition = RunDefinition.of(config, model=model,
                                  tasks_digest=tasks_digest(config.tasks_file))
    store = open_run_for(out, RunInfo(name=out.name, command=command, seed=config.seed,
                                      settings=config, model=model),
                         definition, new=new, command=command, on_set_aside=on_set_aside)
    try:
        return _execute(store, suite, config, out, on_plan=on_plan, on_episode=on_episode,
                        on_start=on_start, agent=agent)
    except BaseException:
        # A new run that failed before its first episode leaves nothing of its own.
        store.abandon()
        raise


def _execute(store: RunStore, suite: Suite, config: RunConfig, out: Path, *,
             on_plan: Callable[[RunPlan], None] | None,
             on_episode: Callable[[EpisodeEvent], None] | None,
             on_start: Callable[[EpisodeSpec, int], None] | None,
             agent: Agent | None) -> RunStore:
    started = time.monotonic()
    with ExitStack() as stack:
        session = suite.open(stack, store, config)
        session_urls = session.session_urls
        tasks, problems, unknown = select_tasks(session, suite, config)
        task_errors = [*session.problems, *problems]
        # Episodes lost to an error (crash, timeout, model endpoint down) are run again.
        done = store.completed(agent=config.agent, retry_failed=True)
        specs = [EpisodeSpec(task=t, trial=k, agent=config.agent, max_steps=config.max_steps,
                             timeout_s=config.timeout_s, screenshots=config.screenshots,
                             response_body_urls=session.response_bodies.get(t.task_id, ()),
                             page_task=session.page_tasks.get(t.task_id))
                 for t in tasks for k in range(config.trials) if (t.task_id, k) not in done]
        unscored = unscored_trajectories(store) if config.evaluate else []
        plan = RunPlan(tasks=tuple(tasks), specs=tuple(specs),
                       skipped=len(tasks) * config.trials - len(specs),
                       task_errors=tuple(task_errors), warnings=tuple(session.warnings),
                       unknown_ids=tuple(unknown), rescoring=len(unscored))
        if on_plan:
            on_plan(plan)
        # Workers' scratch lives outside the run: what the browser writes there (Playwright's
        # HAR) is redacted only when the store takes it, and a killed run must leave nothing
        # unredacted in its folder. A killed run's scratch is removed by the next run.
        scratch = stack.enter_context(OwnedScratch())
        worker = WorkerConfig(agent=config.agent, llm=config.llm, no_cache=config.no_cache,
                              agent_options=config.agent_options,
                              env=EnvConfig(allowed_origins=tuple(dict.fromkeys(
                                  (*config.allow_origins, *session.allow_origins))),
                                            logins=session.logins,
                                            screenshot_format=config.screenshot_format,
                                            screenshot_quality=config.screenshot_quality,
                                            set_of_marks=config.set_of_marks,
                                            max_download_bytes=config.max_download_bytes,
                                            max_episode_download_bytes=(
                                                config.max_episode_download_bytes)),
                              episodes_per_worker=config.episodes_per_worker,
                              scratch=str(scratch))

        # The accounts' passwords (--accounts) are secrets of the run: redacted wherever the
        # run writes, in every encoding.
        store.redactor.add_secrets(worker.env.known_secrets())

        def announce(traj: Trajectory, scores: list[Score]) -> None:
            if on_episode:
                on_episode(EpisodeEvent(trajectory_id=traj.trajectory_id,
                                        task_id=traj.task.task_id, error=traj.error,
                                        scores={s.evaluator: s.value for s in scores},
                                        headline=suite.headline_value(traj.task, scores)))

        envs = RunEnvironments(store.info, llm=config.llm if config.evaluate else None,
                               no_cache=config.no_cache)
        stage = None
        if config.evaluate:
            stage = stack.enter_context(ScoringStage(out, envs, config.evaluators or None,
                                                     on_scored=announce,
                                                     redactor=store.redactor))
            for tid in unscored:
                stage.submit(store.load_trajectory(tid), store.trajectory_dir(tid))
        agent_usage: list[Usage] = []

        def on_result(spec: EpisodeSpec, traj: Trajectory, artifacts: Artifacts) -> None:
            if traj.usage is not None:
                agent_usage.append(traj.usage)
            if traj.network_trace and traj.network_trace not in artifacts:
                traj = traj.model_copy(update={"network_trace": None})
            if session_urls is not None:
                traj = traj.model_copy(update={"site_urls": session_urls})
            traj = suite.finish(traj)
            folder = store.add_trajectory(traj, artifacts, replace=True)
            shutil.rmtree(worker.workdir(spec), ignore_errors=True)
            if stage is not None:
                stage.submit(traj, folder)
            else:
                announce(traj, [])

        executor = (InProcessExecutor(worker, agent) if agent is not None
                    else _executor(config, worker))
        _publish(store)
        # Tasks that change their sites run after the others, one at a time per site (tasks on
        # different sites side by side, up to --workers), each after its sites' reset
        # commands; the others run in parallel.
        exclusive = session.exclusive
        executor.run([s for s in specs if s.task.task_id not in exclusive], on_result,
                     on_start)

        def run_changing(spec: EpisodeSpec, post: Post) -> None:
            problem = reset_sites(config.reset_cmds, exclusive[spec.task.task_id],
                                  session.served_urls, config.reset_wait_s)
            if problem is not None:
                failed = error_trajectory(spec, Termination.ERROR, problem)
                post(lambda: on_result(spec, failed, {}))
                return
            executor.run([spec], lambda *a: post(lambda: on_result(*a)),
                         (lambda *a: post(lambda: on_start(*a))) if on_start else None)

        run_per_site([s for s in specs if s.task.task_id in exclusive],
                     lambda s: exclusive[s.task.task_id], run_changing, config.workers)
        if stage is not None:
            stage.close()  # every score stored before the run's totals are written
    timings = dict(store.info.timings)
    timings["last_session_s"] = round(time.monotonic() - started, 3)
    timings["total_s"] = round(timings.get("total_s", 0.0) + timings["last_session_s"], 3)
    agent_total = Usage()
    for u in agent_usage:
        agent_total = agent_total.merge(u)
    judges = envs.llm.usage() if envs.llm is not None else Usage()
    usage = dict(store.info.usage)
    # Per role (what `runs show` and the viewer list) and in total (`usage.llm`).
    for key, part in (("llm", agent_total.merge(judges)), ("agent", agent_total),
                      ("judges", judges)):
        if part.models:
            usage = merge_run_usage(usage, part, key=key)
    store.update_info(timings=timings, usage=usage)
    return store


def _publish(store: RunStore) -> None:
    """Everything the run needs is up: a new run becomes a run (its run.json)."""
    record_served_date(store)
    store.publish()


def _executor(config: RunConfig, worker: WorkerConfig):
    if config.executor == "ray":
        from webtraj.execute.ray_executor import RayExecutor

        return RayExecutor(worker, config.workers, address=config.ray_address)
    from webtraj.execute.local import LocalExecutor

    return LocalExecutor(worker, config.workers)
