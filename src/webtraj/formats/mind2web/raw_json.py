"""Mind2Web raw task files (`data/{split}/*.json`, each a JSON list of tasks), streamed one
task at a time with ijson when it is installed (extra `mind2web`), else one file at a time."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from webtraj.formats.mind2web.decode import decode_step, has_task_text
from webtraj.formats.mind2web.steps import IssueLog, M2WStep


def iter_json_items(path: Path, issues: IssueLog) -> Iterator[Any]:
    """Top-level items of a JSON list file without holding the whole file when possible."""
    try:
        import ijson

        errors: tuple[type[BaseException], ...] = (OSError, ValueError, ijson.JSONError)
    except ImportError:
        ijson = None
        errors = (OSError, ValueError)
    try:
        if ijson is None:
            data = orjson.loads(path.read_bytes())
            if not isinstance(data, list):
                data = [data]
            yield from data
            return
        with path.open("rb") as f:
            first = f.read(1)
            while first and first.isspace():
                first = f.read(1)
            f.seek(0)
            prefix = "item" if first == b"[" else ""
            yield from ijson.items(f, prefix, use_float=True)
    except errors as exc:
        issues.report(str(path), f"cannot read JSON: {exc}", skipped=True)


def task_steps(task: Mapping[str, Any], *, issues: IssueLog, file: str, start: int,
               keep_html: bool = True, keep_raw_html: bool = False) -> Iterator[M2WStep]:
    """Flatten one raw task into steps; previous actions are the task's earlier reprs."""
    actions = task.get("actions")
    if not isinstance(actions, list):
        issues.report(file, "task has no 'actions' list", annotation_id=_aid(task),
                      field="actions", skipped=True)
        return
    if not has_task_text(task):
        issues.report(file, "missing confirmed_task (the task text); its steps are kept "
                      "with an empty task", annotation_id=_aid(task),
                      field="confirmed_task")
    reprs = task.get("action_reprs") or []
    if not isinstance(reprs, list):
        issues.report(file, "action_reprs is not a list; treated as empty",
                      annotation_id=_aid(task), field="action_reprs")
        reprs = []
    for i, action in enumerate(actions):
        if not isinstance(action, Mapping):
            issues.report(file, "action is not an object", field=f"actions[{i}]",
                          annotation_id=_aid(task), skipped=True)
            continue
        step = decode_step(action, task=task, previous_actions=reprs[:i], issues=issues,
                           file=file, index=start + i, keep_html=keep_html,
                           keep_raw_html=keep_raw_html)
        if step is not None:
            yield step


def iter_raw_json(path: Path, *, issues: IssueLog, keep_html: bool = True,
                  keep_raw_html: bool = False) -> Iterator[M2WStep]:
    """Steps of a raw task file; a list of already-flattened steps is accepted too."""
    index = 0
    for item in iter_json_items(path, issues):
        if not isinstance(item, Mapping):
            issues.report(str(path), "list item is not an object", skipped=True)
            continue
        if "actions" in item:
            for step in task_steps(item, issues=issues, file=str(path), start=index,
                                   keep_html=keep_html, keep_raw_html=keep_raw_html):
                yield step
                index += 1
        else:
            step = decode_step(item, task=None, previous_actions=None, issues=issues,
                               file=str(path), index=index, keep_html=keep_html,
                               keep_raw_html=keep_raw_html)
            index += 1
            if step is not None:
                yield step


def _aid(task: Mapping[str, Any]) -> str | None:
    aid = task.get("annotation_id")
    return None if aid is None else str(aid)
