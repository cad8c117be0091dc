"""What an agent saw and did: observations, steps and whole trajectories."""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Any, ClassVar, Literal

import orjson
from pydantic import Field, JsonValue, model_validator

from webtraj.model.action import POINT_KINDS, Action, ActionKind
from webtraj.model.base import Document, FrozenModel
from webtraj.model.episode import (
    LEGACY_METADATA_FIELDS,
    BlockedRequest,
    DialogRecord,
    DownloadRecord,
    RecordingNotes,
)
from webtraj.model.exploration import Exploration
from webtraj.model.task import Task
from webtraj.model.usage import StepUsage, Usage


class Tab(FrozenModel):
    index: int = Field(ge=0)
    url: str
    title: str = ""
    active: bool = False


class Observation(FrozenModel):
    url: str
    title: str = ""
    tabs: tuple[Tab, ...] = ()
    # Accessibility tree text, one node per line: `[id] [role] [name] [properties]`.
    axtree: str = ""
    html: str | None = None
    # Path of the screenshot, relative to the trajectory folder (e.g. `step-003.png`).
    screenshot: str | None = None
    # The same screenshot with every element id drawn at its box (set-of-marks), beside it
    # (e.g. `step-003.som.png`), when the run asked for it.
    som_screenshot: str | None = None
    focused: str | None = None
    last_action_error: str | None = None
    # Why the page's accessibility tree could not be read (too large, timed out, crashed):
    # `axtree` is then empty because nothing was read, not because the page was empty, and
    # every judgement on this observation is unknown with this reason.
    unreadable: str | None = None
    # Machine-readable data the page publishes (parsed JSON-LD blocks), for rule judges.
    structured_data: tuple[JsonValue, ...] = ()
    # The last mouse position the page saw (viewport CSS pixels), once an action of the
    # episode has moved the pointer.
    mouse: tuple[float, float] | None = None
    # Where each element of the tree is (x, y, width, height in viewport CSS pixels, as the
    # screenshot shows it), by id: what an agent acting at coordinates aims at.
    boxes: dict[str, tuple[float, float, float, float]] | None = None
    # Device pixels per CSS pixel of the screenshot (the context's device scale factor);
    # None is 1.
    device_pixel_ratio: float | None = Field(default=None, gt=0)


# Actions whose x, y are a point of the viewport (a scroll's is the element scrolled).
_AT_POINTS = POINT_KINDS | {ActionKind.SCROLL}


class ImageView(FrozenModel):
    """The image a vision model saw at a step and how its pixels map to the page: the point
    (x, y) of the image is the viewport CSS point
    `(origin_x + x * scale_x, origin_y + y * scale_y)`, with
    `scale = source size / image size / device_pixel_ratio` (the downscale and the device
    pixel ratio, applied once). `origin` is where the image's top left is in the viewport:
    (0, 0) for the viewport screenshots webtraj takes (the scroll is already in them).
    `points` are the model's own points (image pixels) of the step's action; the action
    itself is stored in CSS pixels, where it was performed."""

    image: Literal["screenshot", "som"]
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    source_width: int = Field(gt=0)
    source_height: int = Field(gt=0)
    device_pixel_ratio: float = Field(default=1.0, gt=0)
    origin: tuple[float, float] = (0.0, 0.0)
    points: tuple[tuple[float, float], ...] = ()

    @property
    def scale(self) -> tuple[float, float]:
        """CSS pixels per image pixel, across and down."""
        return (self.source_width / self.width / self.device_pixel_ratio,
                self.source_height / self.height / self.device_pixel_ratio)

    def to_viewport(self, x: float, y: float) -> tuple[float, float]:
        sx, sy = self.scale
        return (round(self.origin[0] + x * sx, 2), round(self.origin[1] + y * sy, 2))

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        sx, sy = self.scale
        return ((x - self.origin[0]) / sx, (y - self.origin[1]) / sy)

    def box_to_image(self, box: tuple[float, float, float, float]
                     ) -> tuple[float, float, float, float]:
        """A viewport box (x, y, width, height in CSS pixels) in the image's pixels."""
        sx, sy = self.scale
        x, y = self.to_image(box[0], box[1])
        return (x, y, box[2] / sx, box[3] / sy)

    def mapped(self, action: Action) -> Action:
        """`action` (a mouse action at image pixels) at viewport CSS pixels; other actions
        unchanged (a scroll's x, y are distances, not points)."""
        if action.kind not in _AT_POINTS or action.x is None or action.y is None:
            return action
        x, y = self.to_viewport(action.x, action.y)
        update: dict[str, float] = {"x": x, "y": y}
        if action.to_x is not None and action.to_y is not None:
            update["to_x"], update["to_y"] = self.to_viewport(action.to_x, action.to_y)
        return action.model_copy(update=update)

    def seen(self, action: Action) -> Action:
        """The stored (CSS) `action` as the model wrote it, at its own `points`."""
        if not self.points or action.kind not in _AT_POINTS or action.x is None:
            return action
        (x, y), *rest = self.points
        update: dict[str, float] = {"x": x, "y": y}
        if rest and action.to_x is not None:
            update["to_x"], update["to_y"] = rest[0]
        return action.model_copy(update=update)

    def in_image(self, action: Action, recorded: ImageView | None = None) -> Action:
        """The stored (CSS) `action` as a model that saw this image answers it: the model's
        own points when `recorded` (the step's view) saw an image of this size, else the
        action's points mapped into this image (to 0.1 pixel)."""
        if action.kind not in _AT_POINTS or action.x is None or action.y is None:
            return action
        if recorded is not None and recorded.points and (
                recorded.width, recorded.height) == (self.width, self.height):
            return recorded.seen(action)
        x, y = self.to_image(action.x, action.y)
        update: dict[str, float] = {"x": round(x, 1), "y": round(y, 1)}
        if action.to_x is not None and action.to_y is not None:
            tx, ty = self.to_image(action.to_x, action.to_y)
            update["to_x"], update["to_y"] = round(tx, 1), round(ty, 1)
        return action.model_copy(update=update)

    @staticmethod
    def points_of(action: Action) -> tuple[tuple[float, float], ...]:
        if action.kind not in _AT_POINTS or action.x is None or action.y is None:
            return ()
        if action.to_x is not None and action.to_y is not None:
            return ((action.x, action.y), (action.to_x, action.to_y))
        return ((action.x, action.y),)


class ElementBox(FrozenModel):
    """Where the acted element was on the step's screenshot (CSS pixels of that image), so a
    viewer can draw it; None when the element could not be measured or had no box."""

    x: float
    y: float
    width: float = Field(ge=0)
    height: float = Field(ge=0)


class PointedElement(FrozenModel):
    """What was under a mouse action's point just before the action: a drag has one for its
    start and one for its end. `element_id` is the element's id in the observation, when it
    (or an element around it) has one; `box` is where it was on the step's screenshot."""

    x: float
    y: float
    tag: str = ""
    element_id: str | None = None
    text: str = ""
    box: ElementBox | None = None


class StepTimings(FrozenModel):
    """Where a step's time went, in seconds. The capture's parts run concurrently, so tree and
    screenshot overlap inside `capture`; `storage` is writing the step's files and journal."""

    agent: float | None = None
    action: float | None = None
    settle: float | None = None
    capture: float | None = None
    tree: float | None = None
    screenshot: float | None = None
    storage: float | None = None


class Step(FrozenModel):
    index: int = Field(ge=0)
    observation: Observation
    # None when the agent's output could not be read as an action (see `error`).
    action: Action | None = None
    reasoning: str = ""
    raw_output: str | None = None
    started_at: float | None = None
    duration_s: float | None = Field(default=None, ge=0)
    error: str | None = None
    # The acted element's box on `observation.screenshot`, measured just before the action
    # (for a mouse action, the box of the element under its point).
    element_box: ElementBox | None = None
    # For a mouse action at a point: what was under the point (and under a drag's end).
    pointed: tuple[PointedElement, ...] = ()
    timings: StepTimings | None = None
    # The agent's model calls for this step (llm, mindact); None for agents without a model.
    usage: StepUsage | None = None
    # The image the agent's model saw (a vision agent), with the mapping of its pixels to
    # the page and the model's own points; None for text-only agents.
    view: ImageView | None = None


class Termination(StrEnum):
    STOP = "stop"
    # The page ended the task itself (a MiniWoB++ page gave its reward): no stop step after.
    PAGE_ENDED = "page_ended"
    MAX_STEPS = "max_steps"
    ERROR = "error"
    TIMEOUT = "timeout"
    IMPORTED = "imported"


_PLAIN_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*(?:_[A-Za-z0-9.\-]+)*")
_UNSAFE = re.compile(r"[^A-Za-z0-9.\-]+")
# Longest task and agent parts kept as they are; longer ones are cut and digested. Ids stay
# well under a file name's 255 bytes, with room for scratch and temporary names around them.
_TASK_PART_MAX = 96
_AGENT_PART_MAX = 40


def trajectory_id(task_id: str, agent: str, trial: int) -> str:
    """`{task}__{agent}__t{trial}` when task and agent are plain (letters, digits, `.`, `-`,
    single `_`; no leading punctuation; short enough), so the id reads as what it names.
    Otherwise each part is made plain (other characters become `_`, long parts are cut) and a
    digest of the exact triple is appended: `{task}__{agent}__t{trial}-{12 hex}`.

    Injective: a plain id splits back into its parts at its `__`s; a digested one ends in `-`
    and 12 hex digits, which a plain id (ending in `__t` and the trial's digits) never does, and
    two digested ids share their digest only if their exact triples do (up to a 48-bit hash)."""
    tail = f"__t{int(trial)}"
    if (len(task_id) <= _TASK_PART_MAX and len(agent) <= _AGENT_PART_MAX
            and _PLAIN_PART.fullmatch(task_id) and _PLAIN_PART.fullmatch(agent)):
        return f"{task_id}__{agent}{tail}"
    exact = orjson.dumps([task_id, agent, int(trial)])
    digest = hashlib.sha256(exact).hexdigest()[:12]
    return f"{_plain(task_id, _TASK_PART_MAX)}__{_plain(agent, _AGENT_PART_MAX)}{tail}-{digest}"


def _plain(text: str, limit: int) -> str:
    out = _UNSAFE.sub("_", text).strip("._-")[:limit].rstrip("._-")
    return out or "x"


class Trajectory(Document):
    # Version 2 added `site_urls`; version 3 the steps' `timings` and `usage`; version 4
    # mouse actions (points), the steps' `pointed`, the observations' `mouse` and `boxes`;
    # version 5 the episode records as fields (`blocked_requests`, `refused_tunnels`,
    # `dialogs`, `downloads`, `recording`) and the agent's `usage`, which older versions kept
    # in `metadata`; version 6 the `exploration` of an episode run without a task.
    schema_version: int = 6
    SUPPORTED_VERSIONS: ClassVar[frozenset[int]] = frozenset({1, 2, 3, 4, 5, 6})
    trajectory_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9._\-]+$")
    task: Task
    agent: str
    trial: int = Field(default=0, ge=0)
    steps: tuple[Step, ...] = ()
    final_observation: Observation | None = None
    answer: str | None = None
    # Path of the network trace relative to the trajectory folder (e.g. `network.har`).
    network_trace: str | None = None
    # Base URL of each site as this trajectory saw them, when they differ from the run's
    # (a resumed run whose sandbox had to move to other ports): scored against these.
    site_urls: dict[str, str] | None = None
    termination: Termination | None = None
    error: str | None = None
    started_at: float | None = None
    finished_at: float | None = None
    # What the browser environment recorded besides the steps (`webtraj.model.episode`):
    # requests the allowlist refused, tunnels its proxy refused (no URL; Chromium's own
    # services open them too, so they are kept apart), dialogs answered, downloads started.
    blocked_requests: tuple[BlockedRequest, ...] = ()
    refused_tunnels: tuple[BlockedRequest, ...] = ()
    dialogs: tuple[DialogRecord, ...] = ()
    downloads: tuple[DownloadRecord, ...] = ()
    # How the recorder saw a human demonstration (`webtraj record`); None for agents.
    recording: RecordingNotes | None = None
    # Who explored and with which seed, for an episode of `webtraj explore` (its task carries
    # the same in `metadata.exploration`); None for any other episode.
    exploration: Exploration | None = None
    # The agent's model calls in this episode, per model (the sum of its decisions' usage);
    # None when the agent reported none.
    usage: Usage | None = None
    # Anything else about the trajectory that is not webtraj's own fact (an importer's source
    # file, a tool's own success flag, ...).
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _records_from_metadata(cls, data: Any) -> Any:
        """Trajectories written before version 5 kept the episode records as `metadata`
        keys: move them into their fields (the document is then one of the current version,
        which only added optional fields since)."""
        if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict):
            return data
        version = data.get("schema_version", 1)
        if not isinstance(version, int) or version >= 5:
            return data
        meta = dict(data["metadata"])
        moved = {field: meta.pop(key) for key, field in LEGACY_METADATA_FIELDS.items()
                 if key in meta and field not in data}
        if isinstance(moved.get("usage"), dict):  # kept in the run-usage form, with totals
            moved["usage"] = {"models": moved["usage"].get("models") or {}}
        current = cls.model_fields["schema_version"].default
        return {**data, **moved, "metadata": meta, "schema_version": current} if moved else data

    @model_validator(mode="after")
    def _steps_in_order(self) -> Trajectory:
        for i, step in enumerate(self.steps):
            if step.index != i:
                raise ValueError(
                    f"steps[{i}] has index {step.index}; steps must be numbered 0..n-1")
        return self

    @staticmethod
    def make_id(task_id: str, agent: str, trial: int) -> str:
        """The trajectory id of (task, agent, trial): a file name, the same every time, and
        injective (distinct triples never share an id; see `trajectory_id`)."""
        return trajectory_id(task_id, agent, trial)

    @property
    def observations(self) -> list[Observation]:
        """o_0..o_T: the observation before each step, then the final one."""
        obs = [s.observation for s in self.steps]
        if self.final_observation is not None:
            obs.append(self.final_observation)
        return obs

    @property
    def stopped(self) -> bool:
        return bool(self.steps) and self.steps[-1].action is not None and (
            self.steps[-1].action.kind is ActionKind.STOP
        )
