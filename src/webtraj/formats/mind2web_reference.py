"""Mind2Web tasks as reference trajectories: the annotated human actions of each task, one
Step per action, so they can be stored, browsed and scored like any agent's run.

Mind2Web folds HOVER and ENTER into CLICK in `op`; `original_op` keeps them, and they
become `hover [id]` and `press [Enter]` here. The element is the first positive
candidate's `backend_node_id` (the annotated target). Pages carry no URL in the data, so
observations have an empty URL; the cleaned HTML is kept only when asked (pages are large).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from webtraj.formats.imported import Imported, ImportLog, WrongFormat, image_name
from webtraj.formats.local_files import check_image
from webtraj.formats.mind2web import IssueLog, M2WStep, iter_steps
from webtraj.formats.mind2web.gold import gold_config
from webtraj.model import (
    Action,
    ActionKind,
    InputError,
    Observation,
    Step,
    Task,
    Termination,
    Trajectory,
)

AGENT = "mind2web-reference"
SOURCE = "mind2web"


def step_action(step: M2WStep) -> Action:
    """The webtraj action of one annotated step; raises ValueError saying why there is
    none (no positive candidate, an operation webtraj lacks)."""
    op = step.operation
    kind = (op.original_op or op.op).upper()
    if kind == "ENTER":
        return Action(kind=ActionKind.PRESS, value="Enter")
    if kind not in ("CLICK", "HOVER", "TYPE", "SELECT"):
        raise ValueError(f"unsupported Mind2Web operation {kind!r}")
    if not step.pos_candidates:
        raise ValueError(f"{kind} has no positive candidate (the target element is unknown)")
    element = step.pos_candidates[0].backend_node_id
    if kind == "CLICK":
        return Action(kind=ActionKind.CLICK, element_id=element)
    if kind == "HOVER":
        return Action(kind=ActionKind.HOVER, element_id=element)
    if kind == "TYPE":
        # Mind2Web records Enter as its own ENTER action, so typing does not press it.
        return Action(kind=ActionKind.TYPE, element_id=element, value=op.value,
                      press_enter=False)
    return Action(kind=ActionKind.SELECT, element_id=element, value=op.value)


def _ordered(steps: list[M2WStep]) -> list[M2WStep]:
    return sorted(steps, key=lambda s: (len(s.previous_actions), s.index))


def _screenshots(steps: list[M2WStep], log: ImportLog) -> dict[int, tuple[str, bytes]]:
    """Step position -> (artifact name, image bytes), for steps whose source holds one
    (Multimodal-Mind2Web parquet rows). Bytes that are not a PNG or JPEG raise InputError:
    the task is not imported."""
    from webtraj.formats.mind2web.parquet import read_screenshot

    out: dict[int, tuple[str, bytes]] = {}
    for i, s in enumerate(steps):
        if s.screenshot is None:
            continue
        try:
            data = read_screenshot(s.screenshot)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types; one shot only
            log.warn(f"cannot read screenshot: {exc}", file=s.source, record=s.action_uid,
                     field="screenshot")
            continue
        if data:
            check_image(data, file=s.source, record=s.action_uid, field="screenshot")
            out[i] = (image_name(i, data), data)
    return out


def trajectory_from_steps(steps: list[M2WStep], *, html: bool = False,
                          screenshots: dict[int, tuple[str, bytes]] | None = None
                          ) -> Trajectory:
    """One task's steps (in any order) as its reference trajectory."""
    ordered = _ordered(steps)
    first = ordered[0]
    shots = screenshots or {}
    out: list[Step] = []
    for i, s in enumerate(ordered):
        action: Action | None = None
        error: str | None = None
        try:
            action = step_action(s)
        except ValueError as exc:
            error = str(exc).splitlines()[0]
        raw = {"action_uid": s.action_uid, "op": s.operation.op,
               "original_op": s.operation.original_op, "value": s.operation.value,
               "pos_candidates": list(s.positive_ids)}
        shot = shots.get(i)
        out.append(Step(index=i, observation=Observation(
            url="", html=s.cleaned_html if html else None,
            screenshot=shot[0] if shot else None), action=action,
            raw_output=orjson.dumps(raw).decode(), error=error))
    task = Task(task_id=first.annotation_id, intent=first.confirmed_task,
                site=first.website or None, evaluators=(gold_config(ordered),),
                metadata={"source": SOURCE, "domain": first.domain,
                          "subdomain": first.subdomain})
    return Trajectory(
        trajectory_id=Trajectory.make_id(first.annotation_id, AGENT, 0), task=task,
        agent=AGENT, steps=tuple(out), termination=Termination.IMPORTED,
        metadata={"source": SOURCE, "file": first.source,
                  "action_uids": [s.action_uid for s in ordered]},
    )


_ID_FIELDS = ("action_uid", "annotation_id")


def iter_reference(source: str | Path, *, log: ImportLog, html: bool = False,
                   limit: int | None = None, screenshots: bool = False
                   ) -> Iterator[Imported]:
    """Reference trajectories of the tasks in `source` (any form the Mind2Web loader
    reads), in order of first appearance. Steps the loader cannot use are logged as errors
    and the rest of their task is imported; with `limit`, reading stops at the first step of
    task limit+1 (task steps are contiguous in Mind2Web's files). With `screenshots`, the
    images of Multimodal-Mind2Web rows become `step-NNN.png` artifacts."""
    issues = IssueLog()
    groups: dict[str, list[M2WStep]] = {}
    try:
        for step in iter_steps(source, issues=issues, keep_html=html):
            if step.annotation_id not in groups and limit is not None and len(groups) >= limit:
                break
            groups.setdefault(step.annotation_id, []).append(step)
    except (OSError, ValueError, ImportError) as exc:
        log.error(f"cannot read Mind2Web data: {exc}", file=str(source))
    if not groups and issues and all(i.field in _ID_FIELDS for i in issues):
        log.errors.append(WrongFormat(
            f"not Mind2Web data: none of its {len(issues)} records has an action_uid and an "
            "annotation_id; expected raw task JSON ([{annotation_id, confirmed_task, actions: "
            "[{action_uid, operation, ...}]}]), flattened steps (JSONL) or parquet",
            file=str(source)))
        return
    for issue in issues:
        record = issue.action_uid or issue.annotation_id
        if issue.skipped:
            log.error(issue.message, file=issue.file, record=record, field=issue.field)
        else:
            log.warn(issue.message, file=issue.file, record=record, field=issue.field)
    for steps in groups.values():
        try:
            shots = _screenshots(_ordered(steps), log) if screenshots else {}
        except InputError as exc:
            log.errors.append(exc)
            continue
        yield Imported(trajectory_from_steps(steps, html=html, screenshots=shots),
                       {name: data for name, data in shots.values()})
