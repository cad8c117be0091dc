"""Comparing runs: one task's trajectories side by side with steps aligned by index and the
first step where their actions differ, and a per-task table of CSR with wins/losses/ties
against the first run."""

from __future__ import annotations

from pydantic import BaseModel

from webtraj.model.action import action_text
from webtraj.model.trajectory import Trajectory


class Column(BaseModel):
    run_key: str
    run_name: str
    trajectory_id: str | None
    csr: float | None = None
    problem: str | None = None


class AlignedStep(BaseModel):
    index: int
    cells: list[tuple[str, str] | None]  # (action text, url) per run, None past the end
    diverges: bool


def align(trajs: list[Trajectory | None]) -> tuple[list[AlignedStep], int | None]:
    """Steps by index; the first index where the actions (text form) are not all equal."""
    n = max((len(t.steps) for t in trajs if t is not None), default=0)
    first: int | None = None
    rows = []
    for i in range(n):
        cells: list[tuple[str, str] | None] = []
        for t in trajs:
            if t is None or i >= len(t.steps):
                cells.append(None)
            else:
                s = t.steps[i]
                cells.append((action_text(s.action), s.observation.url))
        acts = {c[0] if c else None for c in cells}
        if first is None and len(acts) > 1:
            first = i
        rows.append(AlignedStep(index=i, cells=cells, diverges=first == i))
    return rows, first


class TaskRow(BaseModel):
    task_id: str
    csrs: list[float | None]
    # vs the first run: "win" / "loss" / "tie" per other run, None when one side is unscored
    results: list[str | None]


class Tally(BaseModel):
    run_name: str
    wins: int = 0
    losses: int = 0
    ties: int = 0


def task_table(names: list[str], per_run: list[dict[str, tuple[float, int]]]
               ) -> tuple[list[TaskRow], list[Tally]]:
    tasks = sorted(set().union(*[set(d) for d in per_run])) if per_run else []
    tallies = [Tally(run_name=n) for n in names[1:]]
    rows = []
    for task in tasks:
        csrs = [d[task][0] if task in d else None for d in per_run]
        results: list[str | None] = []
        for j, other in enumerate(csrs[1:]):
            base = csrs[0]
            if base is None or other is None:
                results.append(None)
                continue
            r = "win" if other > base else "loss" if other < base else "tie"
            setattr(tallies[j], r + ("es" if r == "loss" else "s"),
                    getattr(tallies[j], r + ("es" if r == "loss" else "s")) + 1)
            results.append(r)
        rows.append(TaskRow(task_id=task, csrs=csrs, results=results))
    return rows, tallies
