"""The agent protocol: one small async method, so users plug in their own agents.

An agent sees what webtraj stores (the task and `Observation` models, the steps so far), so a
run can be judged and replayed from its files alone. An agent that calls a model may say what
each decision cost in `AgentDecision.usage`; webtraj records it per step and adds it up per
trajectory and run. An agent that does not simply reports no usage."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol, runtime_checkable

from webtraj.model.action import Action
from webtraj.model.base import FrozenModel
from webtraj.model.task import Task
from webtraj.model.trajectory import ImageView, Observation, Step
from webtraj.model.usage import Usage


class AgentDecision(FrozenModel):
    """The next action, or None with `error` when the agent produced nothing usable (the
    episode goes on: the agent sees the same page again)."""

    action: Action | None = None
    reasoning: str = ""
    raw_output: str | None = None
    error: str | None = None
    # The model calls behind this decision, per model (optional: None when the agent called
    # no model or does not count its calls). The built-in model agents fill it from
    # `webtraj.llm.usage_scope`; an agent with its own client may fill it itself.
    usage: Usage | None = None
    # The image the model saw and how its pixels map to the page (a vision agent); the
    # episode stores it as `Step.view`.
    view: ImageView | None = None

    def with_usage(self, usage: Usage) -> AgentDecision:
        """This decision with the model calls behind it (unchanged when there were none)."""
        return self.model_copy(update={"usage": usage}) if usage.models else self


@runtime_checkable
class Agent(Protocol):
    name: str

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        """Decide the next action from the task, the current page and the steps so far."""
        ...


class AgentError(Exception):
    """An agent that cannot run at all (bad configuration), as opposed to one bad step."""


# The folder of the episode's files while its agent decides: `Observation.screenshot` is a
# path inside it. The episode sets it; a vision agent reads the step's screenshot there.
_EPISODE_FILES: ContextVar[Path | None] = ContextVar("webtraj_episode_files", default=None)


def episode_files() -> Path | None:
    """The current episode's folder (None outside an episode)."""
    return _EPISODE_FILES.get()


@contextmanager
def episode_files_at(folder: Path) -> Iterator[None]:
    """Within the block, `episode_files()` is `folder`."""
    token = _EPISODE_FILES.set(folder)
    try:
        yield
    finally:
        _EPISODE_FILES.reset(token)
