"""The messages a model received at a step. Trajectories do not store prompts (they would
repeat each step's tree); for the `llm` agent, whose prompt is a pure function of the task,
the step's stored observation and the earlier steps, the viewer rebuilds them with the run's
agent options and this webtraj's prompt code, and says so. For other agents there is
nothing to rebuild: the page shows the model's reply as stored."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from webtraj.agents.llm_agent import LLMAgent
from webtraj.agents.prompt_builder import Folder, StepImage
from webtraj.agents.prompt_builder import typed as agent_messages
from webtraj.agents.registry import LLMAgentOptions
from webtraj.llm.messages import TextPart
from webtraj.model.run import RunInfo
from webtraj.model.trajectory import ImageView, Trajectory

# Agents whose prompts the viewer can rebuild.
REBUILDABLE = frozenset({"llm"})


class ShownMessage(BaseModel):
    role: str
    text: str
    images: int = 0


class RebuiltPrompt(BaseModel):
    messages: list[ShownMessage]
    options: dict[str, object]
    note: str
    # The image the step's prompt carried (as sent: downscaled, marks drawn when used) and
    # how its pixels map to the page; served by the viewer's /prompt-image.
    view: ImageView | None = None
    image: bytes | None = None


def rebuild(traj: Trajectory, index: int, info: RunInfo | None,
            files: Folder | None = None) -> RebuiltPrompt | None:
    """The step's messages, or None when this agent's prompt cannot be rebuilt; the images
    are read in `files` (the trajectory folder) by the agent's own rule."""
    if traj.agent not in REBUILDABLE or not 0 <= index < len(traj.steps):
        return None
    raw = info.settings.agent_options if info and info.settings and \
        info.settings.agent == traj.agent else {}
    try:
        opts = LLMAgentOptions.model_validate(raw)
        note = ""
    except ValidationError:
        opts = LLMAgentOptions()
        note = "the run's agent options could not be read; the defaults are used. "
    agent = LLMAgent(None, opts)  # type: ignore[arg-type]  # no calls made
    prompt = agent.prompt.build(traj.task, traj.steps[index].observation,
                                traj.steps[:index], files=files)
    msgs = agent_messages(prompt.turns)
    image: StepImage | None = prompt.image
    shown = [ShownMessage(role=m.role, text=m.text,
                          images=0 if isinstance(m.content, str) else sum(
                              1 for p in m.content if not isinstance(p, TextPart)))
             for m in msgs]
    return RebuiltPrompt(messages=shown, options=opts.model_dump(),
                         view=image.view if image else None,
                         image=image.data if image else None, note=note + (
        "Rebuilt from the stored observation and the earlier steps with this webtraj's "
        "prompt code and the run's agent options: the trajectory does not store prompts, "
        "so a prompt made by an older webtraj may have differed."))
