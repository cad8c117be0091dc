"""webtraj task files: JSONL (one task per line) or a JSON list. A bad record is reported
with file, line and field, and skipped; a file whose every record is bad names each one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson

from webtraj.model import InputError, Task

# Bad records listed one by one in the error of a file that has no usable task.
_LISTED = 20


# A check of a loaded task by a higher layer (a run checks the evaluator configs with the
# evaluator registry): raises InputError naming the field; the loader adds file and record.
TaskCheck = Callable[[Task], None]


def load_tasks(path: str | Path, *, need_start_url: bool = False,
               check: TaskCheck | None = None) -> tuple[list[Task], list[InputError]]:
    """Tasks of the file and the bad records (skipped). `need_start_url`: a task without a
    start URL is a bad record too (a run or a recording has nowhere to begin it); `check`:
    a task it refuses is a bad record (named by line and field, at load, not at scoring)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    tasks: list[Task] = []
    # Where each task was read ("line 3", "item 2"), to name both copies of a duplicate.
    where: list[str] = []
    errors: list[InputError] = []
    if data.lstrip().startswith(b"["):
        try:
            items = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", file=path) from None
        if not isinstance(items, list):
            raise InputError("expected a JSON list of tasks", file=path)
        for i, item in enumerate(items):
            try:
                tasks.append(_checked(Task.from_obj(item, file=path, record=f"item {i}"),
                                      need_start_url, check, path, f"item {i}"))
                where.append(f"item {i}")
            except InputError as exc:
                errors.append(exc)
    else:
        for n, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                tasks.append(_checked(Task.from_json_bytes(line, file=path, record=f"line {n}"),
                                      need_start_url, check, path, f"line {n}"))
                where.append(f"line {n}")
            except InputError as exc:
                errors.append(exc)
    if not tasks and not errors:
        raise InputError("no tasks in this file (it is empty)", file=path)
    first: dict[str, str] = {}
    for t, at in zip(tasks, where, strict=True):
        if t.task_id in first:
            # Which copy was meant cannot be known, and both would be one trajectory.
            raise InputError(f"duplicate task_id {t.task_id!r}: {first[t.task_id]} has it "
                             "too; task ids must be unique in a file", file=path,
                             record=at, field="task_id")
        first[t.task_id] = at
    return tasks, errors


def _checked(task: Task, need_start_url: bool, check: TaskCheck | None, path: Path,
             where: str) -> Task:
    if need_start_url and not task.start_url:
        raise InputError(f"task {task.task_id!r} has no start_url: an episode needs a page to "
                         "start from", file=path, record=where, field="start_url")
    if check is not None:
        try:
            check(task)
        except InputError as exc:
            raise InputError(exc.message, file=path, record=where, field=exc.field) from None
    return task


def no_usable_task(path: str | Path, errors: list[InputError]) -> InputError:
    """The error of a tasks file with no usable task: every bad record by line and field."""
    if not errors:
        return InputError("no usable task in the file (it is empty)", file=path)
    lines = [f"  {_where(e)}: {e.message}" for e in errors[:_LISTED]]
    if len(errors) > _LISTED:
        lines.append(f"  ... and {len(errors) - _LISTED} more bad records")
    n = len(errors)
    return InputError(f"no usable task in the file: {'its' if n > 1 else 'the'} "
                      f"{n} record{'s' if n > 1 else ''} {'are all' if n > 1 else 'is'} bad:\n"
                      + "\n".join(lines), file=path)


def _where(error: InputError) -> str:
    parts = [str(error.record) if error.record is not None else "the file"]
    if error.field:
        parts.append(f"field '{error.field}'")
    return ", ".join(parts)
