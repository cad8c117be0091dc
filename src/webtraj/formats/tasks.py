"""webtraj task files: JSONL (one task per line) or a JSON list. A bad record is reported
with file, line and field, and skipped."""

from __future__ import annotations

from pathlib import Path

import orjson

from webtraj.model import InputError, Task


def load_tasks(path: str | Path) -> tuple[list[Task], list[InputError]]:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    tasks: list[Task] = []
    errors: list[InputError] = []
    if data.lstrip().startswith(b"["):
        try:
            items = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", file=path) from None
        records = [(i, item) for i, item in enumerate(items)]
        for i, item in records:
            try:
                tasks.append(Task.from_obj(item, file=path, record=i))
            except InputError as exc:
                errors.append(exc)
    else:
        for n, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                tasks.append(Task.from_json_bytes(line, file=path, record=f"line {n}"))
            except InputError as exc:
                errors.append(exc)
    if not tasks and not errors:
        raise InputError("no tasks in this file (it is empty)", file=path)
    seen: set[str] = set()
    unique = []
    for t in tasks:
        if t.task_id in seen:
            errors.append(InputError("duplicate task_id; later copy skipped", file=path,
                                     record=t.task_id, field="task_id"))
            continue
        seen.add(t.task_id)
        unique.append(t)
    return unique, errors
