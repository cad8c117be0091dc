"""The few-shot accessibility-tree agent (the constraint-based evaluation paper, §2.1) through the
LLM layer."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.agents.prompt_urls import PromptUrls
from webtraj.agents.prompting import (
    EXAMPLE_ASSISTANT,
    EXAMPLE_USER,
    system_prompt,
    tree_with_points,
    user_prompt,
)
from webtraj.agents.protocol import AgentDecision
from webtraj.llm import LLMClient, LLMError, assistant, system, trim_tree, usage_scope, user
from webtraj.model.action import ActionParseError, ActionSet, parse_answer
from webtraj.model.errors import InfrastructureError
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step


class LLMAgent:
    name = "llm"

    def __init__(self, client: LLMClient, *, history_window: int = 8,
                 tree_tokens: int = 6_000, few_shot: bool = True,
                 action_set: ActionSet = ActionSet.IDS) -> None:
        self.client = client
        self.history_window = history_window
        self.tree_tokens = tree_tokens
        self.few_shot = few_shot
        self.action_set = ActionSet(action_set)
        self.system_prompt = system_prompt(self.action_set)

    def messages(self, task: Task, observation: Observation, history: Sequence[Step]) -> list:
        query = [task.intent, *(str(c.value) for c in task.constraints)]
        tree = trim_tree(observation.axtree, self.tree_tokens, query=query).text
        if self.action_set is not ActionSet.IDS:
            tree = tree_with_points(tree, observation.boxes)
        msgs = [system(self.system_prompt)]
        # The worked example acts by id: shown only where ids are in the set.
        if self.few_shot and self.action_set is not ActionSet.COORDS:
            msgs += [user(EXAMPLE_USER), assistant(EXAMPLE_ASSISTANT)]
        msgs.append(user(user_prompt(task, observation, history, tree=tree,
                                     window=self.history_window)))
        return msgs

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        with usage_scope(self.client.tracker.prices) as calls:
            decision = await self._decide(task, observation, history)
        return decision.with_usage(calls.snapshot())

    async def _decide(self, task: Task, observation: Observation,
                      history: Sequence[Step]) -> AgentDecision:
        try:
            completion = await self.client.chat(self.messages(task, observation, history))
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
        return AgentDecision(action=PromptUrls(task).served_action(parsed.action),
                             reasoning=parsed.reasoning, raw_output=text)
