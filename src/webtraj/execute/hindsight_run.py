"""The labeled run of `webtraj explore`: each kept (task, prefix) pair as an ordinary
trajectory of its labeled task — the explored prefix's steps (observations, actions, the
explorer's reasoning), then a stop whose reasoning states the task — with the prefix's
screenshots and its part of the HAR, stored and scored like any run's (the task's oracle
evaluator), so `webtraj curate`, `view` and `report` take it as they take any run."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import orjson

from webtraj.evaluate.run_scoring import RunEnvironments, ScoringStage
from webtraj.execute.resume import open_run_for, tasks_digest
from webtraj.generate.hindsight import HINDSIGHT_KEY, observation_after
from webtraj.model import RunInfo, Score, Task, Termination, Trajectory
from webtraj.model.action import Action, ActionKind
from webtraj.model.run import RunConfig, RunDefinition
from webtraj.model.trajectory import Step
from webtraj.store.files import artifact_files


@dataclass(frozen=True)
class LabeledPair:
    task: Task
    source: Trajectory
    folder: Path  # the source trajectory's folder in the exploration run
    stop_reasoning: str


def prefix_trajectory(pair: LabeledPair, agent: str) -> Trajectory:
    """The first `prefix` steps of the source, then the stop, under the labeled task."""
    src, task = pair.source, pair.task
    k = int(task.metadata[HINDSIGHT_KEY]["prefix"])  # type: ignore[index,call-overload]
    end = observation_after(src, k)
    assert end is not None
    stop_at = src.steps[k].started_at if k < len(src.steps) else src.finished_at
    steps = (*src.steps[:k], Step(index=k, observation=end, reasoning=pair.stop_reasoning,
                                   action=Action(kind=ActionKind.STOP, value=""),
                                   started_at=stop_at, duration_s=0.0))
    return Trajectory(
        trajectory_id=Trajectory.make_id(task.task_id, agent, 0), task=task, agent=agent,
        steps=steps, final_observation=end, answer="", termination=Termination.STOP,
        network_trace=src.network_trace, site_urls=src.site_urls, started_at=src.started_at,
        finished_at=stop_at, exploration=src.exploration,
        metadata={"hindsight_of": src.trajectory_id})


def prefix_artifacts(pair: LabeledPair, traj: Trajectory) -> dict[str, bytes]:
    """The screenshots the prefix's observations show, and the HAR's requests made before
    the stop, read from the exploration run by its one reader (`store.files`: no link is
    followed out of the run)."""
    files = artifact_files(pair.folder)
    out: dict[str, bytes] = {}
    for obs in [s.observation for s in traj.steps]:
        for name in (obs.screenshot, obs.som_screenshot):
            if name and files.is_file(name):
                out[name] = files.read(name)
    if traj.network_trace and files.is_file(traj.network_trace):
        out[traj.network_trace] = har_before(files.read(traj.network_trace), traj.finished_at)
    return out


def har_before(data: bytes, cutoff: float | None) -> bytes:
    """The HAR with only the entries started before `cutoff` (epoch seconds)."""
    if cutoff is None:
        return data
    har = orjson.loads(data)
    log = har.get("log") or {}
    kept = []
    for entry in log.get("entries") or []:
        try:
            started = dt.datetime.fromisoformat(str(entry.get("startedDateTime"))).timestamp()
        except ValueError:
            continue
        if started < cutoff:
            kept.append(entry)
    return orjson.dumps({**har, "log": {**log, "entries": kept}})


def write_labeled_run(out: Path, pairs: Sequence[LabeledPair], *, config: RunConfig,
                      episodes: RunInfo, command: str = "") -> dict[str, list[Score]]:
    """Store and score the pairs in the run at `out` (a run made from another tasks file is
    set aside); the scores by trajectory id."""
    definition = RunDefinition.of(config, tasks_digest=tasks_digest(config.tasks_file))
    store = open_run_for(out, RunInfo(name=out.name, command=command, seed=config.seed,
                                      settings=config), definition, new=True, command=command)
    scored: dict[str, list[Score]] = {}
    started = time.monotonic()
    with store, ExitStack() as stack:
        store.update_info(sandbox=episodes.sandbox, site_urls=episodes.site_urls)
        stage = stack.enter_context(ScoringStage(
            out, RunEnvironments(store.info), None,
            on_scored=lambda t, s: scored.__setitem__(t.trajectory_id, s)))
        for pair in pairs:
            traj = prefix_trajectory(pair, config.agent)
            folder = store.add_trajectory(traj, prefix_artifacts(pair, traj), replace=True)
            stage.submit(traj, folder)
        store.publish()
        stage.close()
        store.update_info(timings={"total_s": round(time.monotonic() - started, 3)})
    return scored
