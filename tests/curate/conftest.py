"""Builders for curation tests: trajectories with a chosen per-observation constraint
matching, their constraint scores, and small runs written through RunStore."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from webtraj.evaluate.constraints.csr import ObservationCSR, trajectory_score
from webtraj.model import (
    Action,
    ActionKind,
    Constraint,
    ConstraintCheck,
    ConstraintType,
    Observation,
    RunInfo,
    Score,
    Step,
    Task,
    Trajectory,
)
from webtraj.store import RunStore

CONSTRAINTS = (
    Constraint(name="location", value="Lisbon", type=ConstraintType.LOCATION),
    Constraint(name="start_date", value="2026-03-05", type=ConstraintType.DATE),
    Constraint(name="end_date", value="March 9, 2026", type=ConstraintType.DATE),
    Constraint(name="adults", value=3, type=ConstraintType.NUMBER),
    Constraint(name="pool", value=True, type=ConstraintType.BOOLEAN),
    Constraint(name="property_type", value="cabin", type=ConstraintType.ENUM),
    Constraint(name="made_selection", value=True, type=ConstraintType.BOOLEAN),
)

Matching = Sequence[dict[str, bool | None]]


def make_task(task_id: str = "hotels-001", constraints: Sequence[Constraint] = CONSTRAINTS,
              site: str = "hotels") -> Task:
    return Task(task_id=task_id, intent=f"Find a cabin in Lisbon ({task_id})", site=site,
                start_url="http://127.0.0.1:8001/", constraints=tuple(constraints))


def make_traj(task: Task, n_steps: int, *, stop_last: bool = False, trial: int = 0,
              no_action: Sequence[int] = (), tree_size: int = 0) -> Trajectory:
    steps = []
    for i in range(n_steps):
        if i in no_action:
            action = None
        elif stop_last and i == n_steps - 1:
            action = Action(kind=ActionKind.STOP, value="")
        else:
            action = Action(kind=ActionKind.CLICK, element_id=str(10 + i))
        tree = f"[{10 + i}] [button] [Next {i}]" + ("\n[1] [StaticText] [x]" * tree_size)
        steps.append(Step(index=i, observation=Observation(url=f"http://127.0.0.1:8001/p{i}",
                                                           axtree=tree),
                          action=action, reasoning=f"reason {i}",
                          error="unreadable output" if action is None else None))
    final = Observation(url="http://127.0.0.1:8001/final", axtree="[1] [heading] [Done]")
    return Trajectory(trajectory_id=Trajectory.make_id(task.task_id, "heuristic", trial),
                      task=task, agent="heuristic", trial=trial, steps=tuple(steps),
                      final_observation=final)


def make_score(task: Task, matching: Matching, judge: str = "rule") -> Score:
    """The score the constraints evaluator writes with steps=all for this matching."""
    per_obs = []
    for row in matching:
        checks = [ConstraintCheck(name=c.name, ground_truth=c.value, matching=row.get(c.name))
                  for c in task.constraints]
        per_obs.append(ObservationCSR(checks))
    return trajectory_score(f"constraints:{judge}", per_obs)


def matching_rows(task: Task, met_per_obs: Sequence[Sequence[str] | None]) -> list[dict]:
    """Rows of matches: the names met at each observation (None: judge undecided there)."""
    rows = []
    for met in met_per_obs:
        if met is None:
            rows.append({c.name: None for c in task.constraints})
        else:
            rows.append({c.name: c.name in met for c in task.constraints})
    return rows


def write_run(root: Path, items: Sequence[tuple[Trajectory, Sequence[Score]]]) -> Path:
    with RunStore.create(root, RunInfo(name=root.name)) as store:
        for traj, scores in items:
            store.add_trajectory(traj)
            if scores:
                store.add_scores([(traj.trajectory_id, s) for s in scores])
    return root


@pytest.fixture
def small_run(tmp_path: Path) -> Path:
    """Six trajectories on three tasks: full success with an own stop, full success that
    went on, a partial one that stopped early, zero CSR, one unscored step, and one whose
    task has no constraints."""
    task_a, task_b = make_task("hotels-001"), make_task("hotels-002")
    task_c = make_task("hotels-003", constraints=())
    names = [c.name for c in CONSTRAINTS]
    items = []
    t = make_traj(task_a, 3, stop_last=True, trial=0)
    items.append((t, [make_score(task_a, matching_rows(task_a, [[], names[:3], names,
                                                                 names]))]))
    t = make_traj(task_a, 4, trial=1, tree_size=3)
    items.append((t, [make_score(task_a, matching_rows(
        task_a, [[], names[:2], names, names[:5], names[:5]]))]))
    t = make_traj(task_b, 3, stop_last=True)
    items.append((t, [make_score(task_b, matching_rows(task_b, [[], names[:2], names[:4],
                                                                 names[:4]]))]))
    t = make_traj(task_b, 2, trial=1)
    items.append((t, [make_score(task_b, matching_rows(task_b, [[], [], []]))]))
    t = make_traj(task_b, 3, trial=2, no_action=(0,))
    items.append((t, [make_score(task_b, matching_rows(task_b, [[], None, names[:3],
                                                                 names[:1]]))]))
    t = make_traj(task_c, 2)
    items.append((t, []))
    return write_run(tmp_path / "run", items)
