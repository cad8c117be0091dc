"""Recorded demonstrations as tasks with reference actions (`webtraj tasks from-demos`).

A recorded action carries both the observation's element id and the element's role and
name; ids are aria refs that only mean something on the page they were read from, so a
reference action keeps the role-and-name target (how reference actions are replayed) and
the id only when the element had no name. Steps with no action (a click on nothing) are
left out. Tasks on the sandbox sites keep naming their site and carry the sandbox date and
seed they were recorded against, so `webtraj run --tasks FILE` serves the same sites."""

from __future__ import annotations

from collections.abc import Iterable

from webtraj.model import RunInfo, Task, Termination, Trajectory
from webtraj.model.action import Action


class DemoSkipped(ValueError):
    """A recording that cannot become a task (it did not end with an answer)."""


def reference_action(action: Action) -> Action:
    if action.target is not None and action.element_id is not None:
        return action.model_copy(update={"element_id": None})
    return action


def demo_task(traj: Trajectory, info: RunInfo) -> Task:
    """The recorded task with the person's actions as its reference actions."""
    if traj.termination is not Termination.STOP or not traj.stopped:
        raise DemoSkipped(f"trajectory {traj.trajectory_id} ended with "
                          f"{traj.termination or 'no termination'}"
                          f"{f' ({traj.error})' if traj.error else ''}, not an answer")
    actions = tuple(reference_action(s.action) for s in traj.steps if s.action is not None)
    metadata = dict(traj.task.metadata)
    metadata["demo"] = {"run_id": info.run_id, "trajectory_id": traj.trajectory_id}
    if info.sandbox is not None and traj.task.site:
        metadata["sandbox"] = {"suite": info.sandbox.suite,
                               "today": info.sandbox.today.isoformat(),
                               "seed": info.sandbox.seed}
    return traj.task.model_copy(update={"reference_actions": actions, "metadata": metadata})


def demo_tasks(trajectories: Iterable[Trajectory], info: RunInfo
               ) -> tuple[list[Task], list[str]]:
    """One task per recorded task id (its first finished trial), and why others were
    skipped."""
    tasks: dict[str, Task] = {}
    skipped: list[str] = []
    for traj in sorted(trajectories, key=lambda t: (t.task.task_id, t.trial)):
        if traj.task.task_id in tasks:
            continue
        try:
            tasks[traj.task.task_id] = demo_task(traj, info)
        except DemoSkipped as exc:
            skipped.append(str(exc))
    return list(tasks.values()), skipped

