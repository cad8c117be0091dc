"""Recorded demonstrations in Mind2Web's raw task format (REFERENCE.md section 1).

Each element action (click, hover, type, select) of a recording becomes one Mind2Web action:
`cleaned_html` is the observation's accessibility tree in cleaned_html form (elements carry
`backend_node_id` = the observation's element id, as MindAct on a live page reads it),
`raw_html` the page's HTML when the run was recorded with `--html`, the operation is the
action's (a `type` that pressed Enter is followed by an ENTER action, as Mind2Web annotates
it), the positive candidate is the acted element and the negatives are the page's other
actionable elements. Actions Mind2Web has no operation for (scroll, goto, tabs, key presses
other than Enter after typing, the answer) are left out and counted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from webtraj.dom.tree_html import tree_to_cleaned_html
from webtraj.dom.tree_text import parse_tree
from webtraj.formats.mind2web.predictions import StepPrediction
from webtraj.model import Trajectory
from webtraj.model.action import Action, ActionKind

_OPS = {ActionKind.CLICK: "CLICK", ActionKind.HOVER: "CLICK", ActionKind.TYPE: "TYPE",
        ActionKind.SELECT: "SELECT"}
_TAG = {"textbox": "input", "searchbox": "input", "spinbutton": "input", "combobox": "input",
        "checkbox": "input", "radio": "input", "link": "a", "button": "button",
        "option": "option", "listbox": "select"}


@dataclass
class ExportCounts:
    tasks: int = 0
    actions: int = 0
    # Recorded actions Mind2Web has no operation for, by kind.
    left_out: dict[str, int] = field(default_factory=dict)
    # Steps whose page was recorded without --html (raw_html left empty).
    without_html: int = 0


def _candidate(element_id: str, role: str, name: str, *, target: bool) -> dict[str, Any]:
    attrs = {"role": role, "aria_label": name} if name else {"role": role}
    return {"tag": _TAG.get(role, "div"), "is_original_target": target,
            "is_top_level_target": target, "backend_node_id": element_id,
            "attributes": orjson.dumps(attrs).decode()}


def _repr(role: str, name: str, op: str, value: str) -> str:
    text = f"[{role}]  {name} -> {op}"
    return f"{text}: {value}" if op in ("TYPE", "SELECT") else text


def export_trajectory(traj: Trajectory, counts: ExportCounts
                      ) -> tuple[dict[str, Any], list[StepPrediction]]:
    """One Mind2Web raw task for a recording, and its actions as `webtraj mind2web score`
    predictions (the person's own choices)."""
    actions: list[dict[str, Any]] = []
    reprs: list[str] = []
    preds: list[StepPrediction] = []
    aid = traj.trajectory_id
    for step in traj.steps:
        action: Action | None = step.action
        if action is None:
            continue
        if action.kind not in _OPS or not action.element_id:
            kind = action.kind.value
            counts.left_out[kind] = counts.left_out.get(kind, 0) + 1
            continue
        obs = step.observation
        elements = {e.id: e for e in parse_tree(obs.axtree) if e.id}
        el = elements.get(action.element_id)
        role, name = (el.role, el.name) if el else (
            (action.target.role, action.target.name) if action.target else ("", ""))
        cleaned, cands = tree_to_cleaned_html(obs.axtree)
        if not obs.html:
            counts.without_html += 1
        ops = [(_OPS[action.kind], "HOVER" if action.kind is ActionKind.HOVER else
                _OPS[action.kind], action.value or "")]
        if action.kind is ActionKind.TYPE and action.press_enter:
            ops.append(("CLICK", "ENTER", ""))
        for n, (op, original, value) in enumerate(ops):
            uid = f"{aid}-{step.index:03d}" + (f"-{n}" if n else "")
            actions.append({
                "action_uid": uid, "raw_html": obs.html or "", "cleaned_html": cleaned,
                "operation": {"op": op, "original_op": original, "value": value},
                "pos_candidates": [_candidate(action.element_id, role, name, target=True)],
                "neg_candidates": [_candidate(cid, elements[cid].role, elements[cid].name,
                                              target=False)
                                   for cid, _ in cands if cid != action.element_id],
            })
            reprs.append(_repr(role, name, original if original == "ENTER" else op, value))
            preds.append(StepPrediction(annotation_id=aid, action_uid=uid,
                                        element=action.element_id, op=op, value=value))
            counts.actions += 1
    counts.tasks += 1
    task = traj.task
    website = task.site or (obs_host(traj) or "")
    return ({"annotation_id": aid, "website": website, "domain": "demonstrations",
             "subdomain": website, "confirmed_task": task.intent, "action_reprs": reprs,
             "actions": actions}, preds)


def obs_host(traj: Trajectory) -> str | None:
    from urllib.parse import urlsplit

    url = traj.task.start_url or (traj.steps[0].observation.url if traj.steps else "")
    return urlsplit(url).hostname if url else None


def export_trajectories(trajs: Iterable[Trajectory]
                        ) -> tuple[list[dict[str, Any]], list[StepPrediction], ExportCounts]:
    counts = ExportCounts()
    tasks: list[dict[str, Any]] = []
    preds: list[StepPrediction] = []
    for traj in trajs:
        task, p = export_trajectory(traj, counts)
        if task["actions"]:
            tasks.append(task)
            preds.extend(p)
    return tasks, preds, counts
