"""Constraint extraction for a task file: tasks that come without constraints get them from
the model (with the constraint-based evaluation paper's made_selection rule); a task the model
fails on is kept as it
was and counted, never given made-up constraints."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from webtraj.evaluate.constraints.extraction import ExtractionError, extract_constraints
from webtraj.generate.levels import difficulty_for
from webtraj.llm import LLMClient
from webtraj.model.base import FrozenModel
from webtraj.model.task import Task


class ExtractionFailure(FrozenModel):
    task_id: str
    reason: str


class ConstraintsReport(FrozenModel):
    tasks: int = 0
    had_constraints: int = 0
    extracted: int = 0
    failed: int = 0
    bad_records: int = 0
    failures: tuple[ExtractionFailure, ...] = ()
    errors: tuple[str, ...] = ()


async def attach_constraints(client: LLMClient, tasks: Sequence[Task], *,
                             on_done: Callable[[], None] | None = None
                             ) -> tuple[list[Task], ConstraintsReport]:
    """The tasks, those without constraints now with extracted ones (and a difficulty from
    their count when they had none), in the input order."""
    todo = [i for i, t in enumerate(tasks) if not t.constraints]
    gate = asyncio.Semaphore(4 * client.spec.concurrency)

    async def one(task: Task) -> Task | ExtractionFailure:
        async with gate:
            try:
                found = await extract_constraints(client, task.intent)
            except ExtractionError as exc:
                return ExtractionFailure(task_id=task.task_id, reason=str(exc))
            finally:
                if on_done is not None:
                    on_done()
        return task.model_copy(update={
            "constraints": found,
            "difficulty": task.difficulty or difficulty_for(len(found))})

    results = await asyncio.gather(*(one(tasks[i]) for i in todo))
    out = list(tasks)
    failures: list[ExtractionFailure] = []
    for i, res in zip(todo, results, strict=True):
        if isinstance(res, ExtractionFailure):
            failures.append(res)
        else:
            out[i] = Task.model_validate(res.model_dump())  # re-checks unique names
    return out, ConstraintsReport(tasks=len(tasks), had_constraints=len(tasks) - len(todo),
                                  extracted=len(todo) - len(failures), failed=len(failures),
                                  failures=tuple(failures))
