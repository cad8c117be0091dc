"""What an agent saw and did: observations, steps and whole trajectories."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import Field, JsonValue, model_validator

from webtraj.model.action import Action, ActionKind
from webtraj.model.base import Document, FrozenModel
from webtraj.model.step_usage import StepUsage
from webtraj.model.task import Task


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
    focused: str | None = None
    last_action_error: str | None = None
    # Why the page's accessibility tree could not be read (too large, timed out, crashed):
    # `axtree` is then empty because nothing was read, not because the page was empty, and
    # every judgement on this observation is unknown with this reason.
    unreadable: str | None = None
    # Machine-readable data the page publishes (parsed JSON-LD blocks), for rule judges.
    structured_data: tuple[JsonValue, ...] = ()
    # The last mouse position the page saw (viewport CSS pixels), when it saw one.
    mouse: tuple[float, float] | None = None
    # Where each element of the tree is (x, y, width, height in viewport CSS pixels, as the
    # screenshot shows it), by id: what an agent acting at coordinates aims at.
    boxes: dict[str, tuple[float, float, float, float]] | None = None


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


class Termination(StrEnum):
    STOP = "stop"
    MAX_STEPS = "max_steps"
    ERROR = "error"
    TIMEOUT = "timeout"
    IMPORTED = "imported"


class Trajectory(Document):
    # Version 2 added `site_urls`; version 3 the steps' `timings` and `usage`; version 4
    # mouse actions (points), the steps' `pointed`, the observations' `mouse` and `boxes`.
    schema_version: int = 4
    SUPPORTED_VERSIONS: ClassVar[frozenset[int]] = frozenset({1, 2, 3, 4})
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
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _steps_in_order(self) -> Trajectory:
        for i, step in enumerate(self.steps):
            if step.index != i:
                raise ValueError(
                    f"steps[{i}] has index {step.index}; steps must be numbered 0..n-1")
        return self

    @staticmethod
    def make_id(task_id: str, agent: str, trial: int) -> str:
        """A file-system-safe id that is the same for the same (task, agent, trial)."""
        import re

        safe = re.sub(r"[^A-Za-z0-9._\-]+", "_", f"{task_id}__{agent}__t{trial}")
        return safe.strip("._") or "trajectory"

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
