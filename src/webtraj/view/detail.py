"""Everything the trajectory page shows, read from one trajectory folder and the index: the
steps with their screenshot box and highlighted tree line, the per-step constraint checks
(typed `Score.step_checks`, never `details`), every score, and the network requests."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import orjson
from pydantic import BaseModel

from webtraj.model.action import ElementTarget, action_text
from webtraj.model.curation import CurationDecision
from webtraj.model.score import Score, StepCheck
from webtraj.model.trajectory import Step, Trajectory
from webtraj.store.run_store import TRAJECTORY_JSON

_ID = re.compile(r"^\s*\[([^\]]+)\]")


class Box(BaseModel):
    """The acted element's box in percent of the screenshot (so it scales with the image)."""

    left: float
    top: float
    width: float
    height: float


class TreeLine(BaseModel):
    text: str
    acted: bool


class Request(BaseModel):
    method: str
    url: str
    status: int | None
    blocked: str | None = None


class StepView(BaseModel):
    index: int
    step: Step
    action: str
    screenshot: str | None
    box: Box | None
    tree: list[TreeLine]
    checks: list[StepCheck]
    csr: float | None


class TrajectoryView(BaseModel):
    traj: Trajectory
    steps: list[StepView]
    scores: list[Score]
    csr_evaluator: str | None
    requests: list[Request]
    har_problem: str | None
    final_screenshot: str | None
    final_checks: list[StepCheck]
    curation: list[CurationDecision]


def png_size(path: Path) -> tuple[int, int] | None:
    """Width and height from a PNG header (no image library needed)."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h = struct.unpack(">II", head[16:24])
    return (w, h) if w and h else None


def _box(step: Step, folder: Path) -> Box | None:
    eb, shot = step.element_box, step.observation.screenshot
    if eb is None or not shot:
        return None
    size = png_size(folder / shot)
    if size is None:
        return None
    w, h = size
    return Box(left=100 * eb.x / w, top=100 * eb.y / h, width=100 * eb.width / w,
               height=100 * eb.height / h)


def _names_target(rest: str, target: ElementTarget) -> bool:
    """Whether a tree line (after its id) has the target's role and name, matched the way
    Playwright's role locator matches (exact, or a case-insensitive substring)."""
    head = f"[{target.role}] ["
    if not rest.startswith(head):
        return False
    name = rest[len(head):]
    if target.exact:
        return name.startswith(target.name + "]")
    return target.name.lower() in name.split("]", 1)[0].lower()


def _tree(step: Step) -> list[TreeLine]:
    """Tree lines, the acted element's marked: by id, or for an action that names its
    element by role and name (reference actions), the target's nth line with them."""
    action = step.action
    acted_id = action.element_id if action is not None else None
    target = action.target if action is not None and not acted_id else None
    seen = 0
    lines = []
    for line in step.observation.axtree.splitlines():
        m = _ID.match(line)
        hit = False
        if m and acted_id:
            hit = m.group(1) == acted_id
        elif m and target is not None and _names_target(line[m.end():].lstrip(), target):
            hit = seen == target.nth
            seen += 1
        lines.append(TreeLine(text=line, acted=hit))
    return lines


def _requests(traj: Trajectory, folder: Path) -> tuple[list[Request], str | None]:
    out: list[Request] = []
    problem = None
    if traj.network_trace:
        try:
            har = orjson.loads((folder / traj.network_trace).read_bytes())
            for e in har["log"]["entries"]:
                req, resp = e.get("request", {}), e.get("response", {})
                status = resp.get("status")
                out.append(Request(method=str(req.get("method", "")), url=str(req.get("url", "")),
                                   status=status if isinstance(status, int) and status > 0
                                   else None))
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            problem = f"{traj.network_trace} cannot be read: {type(exc).__name__}: {exc}"
    blocked = traj.metadata.get("blocked_requests")
    if isinstance(blocked, list):
        for b in blocked:
            if isinstance(b, dict):
                out.append(Request(method=str(b.get("method", "GET")), url=str(b.get("url", "")),
                                   status=None, blocked=str(b.get("reason", "blocked"))))
    return out, problem


def load_view(folder: Path, scores: list[Score], csr_evaluator: str | None,
              curation: list[CurationDecision] | None = None) -> TrajectoryView:
    traj = Trajectory.load(folder / TRAJECTORY_JSON)
    csr = next((s for s in scores if s.evaluator == csr_evaluator), None)
    checks = csr.step_checks if csr and csr.step_checks else ()
    values = csr.step_values if csr and csr.step_values else ()
    steps = [StepView(index=s.index, step=s, action=action_text(s.action) if s.action else "",
                      screenshot=s.observation.screenshot, box=_box(s, folder), tree=_tree(s),
                      checks=list(checks[s.index]) if s.index < len(checks) else [],
                      csr=values[s.index] if s.index < len(values) else None)
             for s in traj.steps]
    n = len(traj.steps)
    requests, problem = _requests(traj, folder)
    return TrajectoryView(
        traj=traj, steps=steps, scores=scores, csr_evaluator=csr_evaluator,
        requests=requests, har_problem=problem,
        final_screenshot=traj.final_observation.screenshot if traj.final_observation else None,
        final_checks=list(checks[n]) if n < len(checks) else [],
        curation=curation or [])

