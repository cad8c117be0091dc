"""Everything the trajectory page shows, read from one trajectory folder and the index: the
steps with their screenshot box and highlighted tree line, the per-step constraint checks
(typed `Score.step_checks`, never `details`), every score, and the network requests."""

from __future__ import annotations

import re
import struct

from pydantic import BaseModel

from webtraj.curate.chat_records import by_id
from webtraj.dom.tree_text import parse_tree
from webtraj.model.action import ElementTarget
from webtraj.model.action_text import action_text
from webtraj.model.curation import CurationDecision
from webtraj.model.score import Score, StepCheck
from webtraj.model.trajectory import Step, Trajectory
from webtraj.store.files import NotInRun, TrajectoryFiles
from webtraj.store.run_store import load_trajectory as load_stored_trajectory
from webtraj.view.network import Network, read_network

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


class StepView(BaseModel):
    index: int
    step: Step
    action: str
    # What the timeline shows: the action with the element it acts on ("click [61] button
    # 'Search'"), or what happened when there was no action ("unparsed reply", "error").
    label: str
    element: str | None
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
    network: Network
    final_screenshot: str | None
    final_checks: list[StepCheck]
    curation: list[CurationDecision]

    @property
    def headline_label(self) -> str:
        """What the headline evaluator's value is called (CSR, success, pass, ...)."""
        from webtraj.evaluate.registry import family_of

        return family_of(self.csr_evaluator).value_label if self.csr_evaluator else "score"


def png_size(files: TrajectoryFiles, name: str) -> tuple[int, int] | None:
    """Width and height from a PNG header (no image library needed)."""
    try:
        head = files.read(name, limit=24)
    except (NotInRun, OSError):
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h = struct.unpack(">II", head[16:24])
    return (w, h) if w and h else None


def _box(step: Step, files: TrajectoryFiles) -> Box | None:
    eb, shot = step.element_box, step.observation.screenshot
    if eb is None or not shot:
        return None
    size = png_size(files, shot)
    if size is None:
        return None
    w, h = size
    return Box(left=100 * eb.x / w, top=100 * eb.y / h, width=100 * eb.width / w,
               height=100 * eb.height / h)


def acted_element(step: Step) -> tuple[str, str, int] | None:
    """The element the step acts on as (role, name, its position among the tree's elements
    with that role and name), from the step's tree by id, or from a reference action's
    target; None when the action acts on no element or the tree does not have it."""
    a = step.action
    if a is None:
        return None
    tree = step.observation.axtree
    resolved = by_id(a, tree)
    if resolved is not None and resolved.element_id:
        elements = parse_tree(tree)
        found = next((e for e in elements if e.id == resolved.element_id), None)
        if found is not None:
            twins = [e.id for e in elements if (e.role, e.name) == (found.role, found.name)]
            return (found.role, found.name, twins.index(found.id))
    if a.target is not None:
        return (a.target.role, a.target.name, a.target.nth)
    return None


def element_text(element: tuple[str, str, int] | None) -> str | None:
    return f"{element[0]} '{element[1]}'" if element else None


def step_label(step: Step, element: str | None) -> str:
    """The timeline's line for a step: never blank."""
    if step.action is None:
        if step.raw_output is not None:
            return "unparsed reply" if step.raw_output.strip() else "empty reply"
        return "error" if step.error else "no action"
    text = action_text(step.action)
    return f"{text} {element}" if element and element not in text else text


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


def load_trajectory(files: TrajectoryFiles) -> Trajectory:
    """The folder's trajectory.json, read as the store reads it (`store.files`: no links)."""
    return load_stored_trajectory(files.run_root, files.trajectory_id)


def load_view(files: TrajectoryFiles, scores: list[Score], csr_evaluator: str | None,
              curation: list[CurationDecision] | None = None) -> TrajectoryView:
    traj = load_trajectory(files)
    csr = next((s for s in scores if s.evaluator == csr_evaluator), None)
    checks = csr.step_checks if csr and csr.step_checks else ()
    values = csr.step_values if csr and csr.step_values else ()
    steps = [StepView(index=s.index, step=s, action=action_text(s.action) if s.action else "",
                      element=(el := element_text(acted_element(s))), label=step_label(s, el),
                      screenshot=s.observation.screenshot, box=_box(s, files), tree=_tree(s),
                      checks=list(checks[s.index]) if s.index < len(checks) else [],
                      csr=values[s.index] if s.index < len(values) else None)
             for s in traj.steps]
    n = len(traj.steps)
    net = read_network(traj, files)
    return TrajectoryView(
        traj=traj, steps=steps, scores=scores, csr_evaluator=csr_evaluator,
        network=net,
        final_screenshot=traj.final_observation.screenshot if traj.final_observation else None,
        final_checks=list(checks[n]) if n < len(checks) else [],
        curation=curation or [])

