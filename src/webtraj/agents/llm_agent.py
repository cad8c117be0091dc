"""The few-shot accessibility-tree agent (the constraint-based evaluation paper, §2.1) through
the LLM layer; what it sends is `PromptBuilder`'s (the curated records' prompts are too)."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.agents.prompt_builder import (
    Folder,
    Prompt,
    PromptBuilder,
    PromptOptions,
    typed,
)
from webtraj.agents.prompt_urls import PromptUrls
from webtraj.agents.protocol import AgentDecision, episode_files
from webtraj.agents.usage import counted
from webtraj.llm import LLMClient, LLMError
from webtraj.llm.messages import Message
from webtraj.model.action_text import ActionParseError, parse_answer
from webtraj.model.errors import InfrastructureError
from webtraj.model.task import Task
from webtraj.model.trajectory import ImageView, Observation, Step


class LLMAgent:
    name = "llm"

    def __init__(self, client: LLMClient, options: PromptOptions | None = None) -> None:
        self.client = client
        self.prompt = PromptBuilder(options)
        self.options = self.prompt.options
        self.action_set = self.options.action_set
        self.system_prompt = self.prompt.system
        # A run must store each step's screenshot for this agent to see it.
        self.needs_screenshots = self.options.observation.image is not None

    def build(self, task: Task, observation: Observation, history: Sequence[Step],
              files: Folder | None = None) -> Prompt:
        """The step's prompt; its screenshot is read in `files` (by default the current
        episode's folder)."""
        return self.prompt.build(task, observation, history,
                                 files=files if files is not None else episode_files())

    def messages(self, task: Task, observation: Observation,
                 history: Sequence[Step], files: Folder | None = None) -> list[Message]:
        return typed(self.build(task, observation, history, files).turns)

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        return await counted(self._decide(task, observation, history),
                             self.client.tracker.prices)

    async def _decide(self, task: Task, observation: Observation,
                      history: Sequence[Step]) -> AgentDecision:
        prompt = self.build(task, observation, history)
        try:
            completion = await self.client.chat(typed(prompt.turns))
        except LLMError as exc:
            if isinstance(exc, InfrastructureError):
                raise  # the endpoint is down: the episode is an error, not this agent's failure
            return AgentDecision(error=f"model call failed: {exc}")
        text = completion.text
        try:
            parsed = parse_answer(text)
        except ActionParseError as exc:
            return AgentDecision(raw_output=text, error=str(exc))
        if not self.action_set.allows(parsed.action):
            return AgentDecision(raw_output=text, reasoning=parsed.reasoning, error=(
                f"{parsed.action.to_text()} is not in this agent's action set "
                f"({self.action_set.value}): use one of "
                f"{', '.join(k.value for k in self.action_set.kinds)}"))
        action, view = parsed.action, prompt.view
        if view is not None:
            # The model's points are pixels of the image it saw: performed at the CSS
            # pixels under them, the model's own points kept with the step.
            view = view.model_copy(update={"points": ImageView.points_of(action)})
            action = view.mapped(action)
        return AgentDecision(action=PromptUrls(task).served_action(action),
                             reasoning=parsed.reasoning, raw_output=text, view=view)
