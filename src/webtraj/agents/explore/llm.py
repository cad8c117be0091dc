"""The `llm` explorer (NNetNav's exploration policy): a model browses as the persona, with the
`llm` agent's prompt (the page fenced as data, `llm.untrusted.fence`) whose task line is the
persona's errand instead of a task; pruned like the persona explorer."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.agents.explore.policy import exploration_of
from webtraj.agents.explore.prune import Pruner
from webtraj.agents.llm_agent import LLMAgent
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.agents.protocol import AgentDecision
from webtraj.llm import LLMClient
from webtraj.model.action import Action, ActionKind
from webtraj.model.exploration import Persona
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step


def errand(persona: Persona) -> str:
    """What the model is asked to do instead of a task: be the persona on this site."""
    return (f"You are a {persona.name}. {persona.about} You have no set task: use this site "
            "as this person would, with a purpose of your own. Search for something you "
            "would want (fill the search form with values the site offers), set the filters "
            "you care about, open results that look right, and go back when they do not. "
            "Never pay, book or sign in. Stop once you have finished one errand.")


class LLMExplorer:
    name = "explore-llm"

    def __init__(self, client: LLMClient, options: PromptOptions | None = None, *,
                 interval: int = 3, patience: int = 2) -> None:
        self.agent = LLMAgent(client, options)
        self.interval, self.patience = interval, patience
        self._pruner = Pruner(interval, patience)

    def persona_task(self, task: Task) -> Task:
        return task.model_copy(update={"intent": errand(exploration_of(task).persona),
                                       "constraints": ()})

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        if not history:
            self._pruner = Pruner(self.interval, self.patience)
        self._pruner.observe(observation)
        if self._pruner.should_stop(sum(1 for s in history if s.action is not None)):
            return AgentDecision(action=Action(kind=ActionKind.STOP, value=""), reasoning=(
                "No new sub-task in the last checks: stop exploring (pruned)."))
        return await self.agent.act(self.persona_task(task), observation, history)
