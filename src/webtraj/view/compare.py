"""Comparing runs: one task's trajectories side by side with steps aligned by index and the
first step where their actions differ, and a per-task table of CSR with wins/losses/ties
against the first run. Actions are compared by what they act on (the element's role and name
in that step's tree), so `click [61]` and `click [button 'Accept all cookies']` on the same
button are the same action."""

from __future__ import annotations

from pydantic import BaseModel

from webtraj.model.action_text import action_text
from webtraj.model.trajectory import Step, Trajectory
from webtraj.view.detail import acted_element, element_text, step_label


class Column(BaseModel):
    run_key: str
    run_name: str
    trajectory_id: str | None
    # The run's headline evaluator and its mean score on the task (CSR for constraints).
    evaluator: str | None = None
    csr: float | None = None
    problem: str | None = None


class Cell(BaseModel):
    action: str
    url: str
    # The acted element as the step's tree names it ("button 'Search'"), when it has one.
    element: str | None = None


class AlignedStep(BaseModel):
    index: int
    cells: list[Cell | None]  # per run, None past the end
    diverges: bool


def _cell(step: Step) -> tuple[Cell, tuple]:
    """The step's cell and the key it is compared by: kind, value and the element as (role,
    name, its position among the tree's elements with that role and name)."""
    a = step.action
    if a is None:
        return (Cell(action=step_label(step, None), url=step.observation.url),
                ("none", step.raw_output))
    element = acted_element(step)
    key = (a.kind, element or a.element_id, a.value)
    return (Cell(action=action_text(a), url=step.observation.url,
                 element=element_text(element)), key)


def align(trajs: list[Trajectory | None]) -> tuple[list[AlignedStep], int | None]:
    """Steps by index; the first index where the actions are not all the same."""
    n = max((len(t.steps) for t in trajs if t is not None), default=0)
    first: int | None = None
    rows = []
    for i in range(n):
        cells: list[Cell | None] = []
        keys = set()
        for t in trajs:
            if t is None or i >= len(t.steps):
                cells.append(None)
                keys.add(None)
            else:
                cell, key = _cell(t.steps[i])
                cells.append(cell)
                keys.add(key)
        if first is None and len(keys) > 1:
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
