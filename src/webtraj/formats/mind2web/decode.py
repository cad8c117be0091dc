"""Turn one source record into an `M2WStep`, reporting malformed fields instead of raising.

Bad candidate attributes (not JSON) keep the candidate with empty attributes; a missing or
unreadable operation makes the step unusable, so it is skipped and reported."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from webtraj.formats.mind2web.steps import (
    Candidate,
    IssueLog,
    M2WStep,
    Operation,
    ScreenshotRef,
)


class _Ctx:
    def __init__(self, issues: IssueLog, file: str, action_uid: str | None,
                 annotation_id: str | None) -> None:
        self.issues, self.file = issues, file
        self.uid, self.aid = action_uid, annotation_id

    def report(self, field: str, message: str, *, skipped: bool = False) -> None:
        self.issues.report(self.file, message, action_uid=self.uid, annotation_id=self.aid,
                           field=field, skipped=skipped)


def _loads_maybe(value: Any) -> Any:
    if isinstance(value, (str, bytes)):
        return orjson.loads(value)
    return value


def decode_operation(value: Any, ctx: _Ctx) -> Operation | None:
    if value is None:
        ctx.report("operation", "missing operation", skipped=True)
        return None
    try:
        obj = _loads_maybe(value)
    except orjson.JSONDecodeError as exc:
        ctx.report("operation", f"operation is not JSON: {exc}", skipped=True)
        return None
    if not isinstance(obj, Mapping) or not isinstance(obj.get("op"), str) or not obj["op"]:
        ctx.report("operation", f"operation has no 'op': {str(obj)[:80]!r}", skipped=True)
        return None
    raw_value = obj.get("value")
    original = obj.get("original_op")
    if original is not None and not isinstance(original, str):
        ctx.report("operation.original_op", "original_op is not a string; ignored")
        original = None
    return Operation(op=obj["op"], original_op=original,
                     value=raw_value if isinstance(raw_value, str) else
                     ("" if raw_value is None else str(raw_value)))


def _decode_attributes(raw: Any, ctx: _Ctx, where: str) -> dict[str, str]:
    if raw is None or raw == "":
        return {}
    try:
        obj = _loads_maybe(raw)
    except orjson.JSONDecodeError as exc:
        ctx.report(where, f"attributes are not JSON ({exc}); kept without attributes")
        return {}
    if not isinstance(obj, Mapping):
        ctx.report(where, "attributes are not a JSON object; kept without attributes")
        return {}
    return {str(k): v if isinstance(v, str) else orjson.dumps(v).decode()
            for k, v in obj.items()}


def decode_candidates(items: Any, ctx: _Ctx, field: str) -> tuple[Candidate, ...]:
    if items is None:
        return ()
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        ctx.report(field, "candidates are not a list; treated as empty")
        return ()
    out: list[Candidate] = []
    for i, item in enumerate(items):
        where = f"{field}[{i}]"
        try:
            obj = _loads_maybe(item)
        except orjson.JSONDecodeError as exc:
            ctx.report(where, f"candidate is not JSON: {exc}; dropped")
            continue
        if not isinstance(obj, Mapping) or obj.get("backend_node_id") in (None, ""):
            ctx.report(where, "candidate has no backend_node_id; dropped")
            continue
        rank = obj.get("rank")
        score = obj.get("score")
        out.append(Candidate.model_construct(
            backend_node_id=str(obj["backend_node_id"]),
            tag=str(obj.get("tag") or ""),
            attributes=_decode_attributes(obj.get("attributes"), ctx, f"{where}.attributes"),
            is_original_target=obj.get("is_original_target"),
            is_top_level_target=obj.get("is_top_level_target"),
            rank=int(rank) if isinstance(rank, (int, float)) else None,
            score=float(score) if isinstance(score, (int, float)) else None,
        ))
    return tuple(out)


def _previous_of(record: Mapping[str, Any]) -> Sequence[str]:
    """`previous_actions`, or the reprs before `target_action_index` (Multimodal rows)."""
    if record.get("previous_actions") is not None:
        return record["previous_actions"]
    reprs = record.get("action_reprs") or []
    try:
        return list(reprs[:int(record.get("target_action_index") or 0)])
    except (TypeError, ValueError):
        return []


def has_task_text(record: Mapping[str, Any]) -> bool:
    value = record.get("confirmed_task")
    return isinstance(value, str) and bool(value.strip())


def decode_step(
    action: Mapping[str, Any],
    *,
    task: Mapping[str, Any] | None,
    previous_actions: Sequence[str] | None,
    issues: IssueLog,
    file: str,
    index: int,
    keep_html: bool = True,
    keep_raw_html: bool = False,
    screenshot: ScreenshotRef | None = None,
) -> M2WStep | None:
    """`action` is a raw action (with `task` giving the task fields) or a flattened step.
    A step that cannot be read is reported (skipped) and None returned: the batch goes on."""
    try:
        return _decode_step(action, task=task, previous_actions=previous_actions,
                            issues=issues, file=file, index=index, keep_html=keep_html,
                            keep_raw_html=keep_raw_html, screenshot=screenshot)
    except (TypeError, ValueError, OverflowError) as exc:  # a value of an unexpected type
        uid = action.get("action_uid") if isinstance(action, Mapping) else None
        issues.report(file, f"cannot read this step: {str(exc).splitlines()[0]}",
                      action_uid=None if uid is None else str(uid), skipped=True)
        return None


def _decode_step(
    action: Mapping[str, Any],
    *,
    task: Mapping[str, Any] | None,
    previous_actions: Sequence[str] | None,
    issues: IssueLog,
    file: str,
    index: int,
    keep_html: bool,
    keep_raw_html: bool,
    screenshot: ScreenshotRef | None,
) -> M2WStep | None:
    src = task if task is not None else action
    uid = action.get("action_uid")
    aid = src.get("annotation_id")
    ctx = _Ctx(issues, file, str(uid) if uid is not None else None,
               str(aid) if aid is not None else None)
    if not uid or not aid:
        ctx.report("action_uid" if not uid else "annotation_id",
                   "missing action_uid or annotation_id", skipped=True)
        return None
    op = decode_operation(action.get("operation"), ctx)
    if op is None:
        return None
    html = action.get("cleaned_html") if keep_html else None
    if html is not None and not isinstance(html, str):
        ctx.report("cleaned_html", "cleaned_html is not a string; dropped")
        html = None
    prev = previous_actions if previous_actions is not None else _previous_of(action)
    if not isinstance(prev, Sequence) or isinstance(prev, (str, bytes, Mapping)):
        ctx.report("previous_actions", "not a list; treated as empty")
        prev = ()
    if task is None and not has_task_text(src):  # raw tasks are checked once, per task
        ctx.report("confirmed_task", "missing confirmed_task (the task text); the step is "
                   "kept with an empty task")
    return M2WStep.model_construct(
        annotation_id=str(aid), action_uid=str(uid),
        website=str(src.get("website") or ""), domain=str(src.get("domain") or ""),
        subdomain=str(src.get("subdomain") or ""),
        confirmed_task=str(src.get("confirmed_task") or ""),
        previous_actions=tuple(str(a) for a in prev), operation=op,
        pos_candidates=decode_candidates(action.get("pos_candidates"), ctx, "pos_candidates"),
        neg_candidates=decode_candidates(action.get("neg_candidates"), ctx, "neg_candidates"),
        cleaned_html=html,
        raw_html=action.get("raw_html") if keep_raw_html else None,
        screenshot=screenshot, source=file, index=index,
    )
