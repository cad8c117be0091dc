"""MindAct on a live page: rank the page's elements, then the multiple-choice tournament.

The live accessibility tree is turned into the same XML form as Mind2Web's cleaned_html
(elements carrying `backend_node_id` = the observation's element id, `<text>` children), so
ranking, pruning, prompts and the tournament are exactly the offline Mind2Web ones."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.agents.mindact.predictors import llm_ask
from webtraj.agents.mindact.settings import MindActOptions
from webtraj.agents.mindact.tournament import run_tournament
from webtraj.agents.protocol import AgentDecision
from webtraj.agents.usage import counted
from webtraj.dom.tree_html import tree_to_cleaned_html
from webtraj.formats.mind2web.steps import Candidate, M2WStep, Operation
from webtraj.llm import LLMClient
from webtraj.model.action import Action, ActionKind
from webtraj.model.action_text import action_text
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step
from webtraj.rank import make_ranker
from webtraj.rank.query import build_query


class MindActAgent:
    name = "mindact"

    def __init__(self, client: LLMClient, options: MindActOptions | None = None) -> None:
        options = options or MindActOptions()
        self.client = client
        self.ask = llm_ask(client)
        self.ranker = make_ranker(options.ranker)
        self.top_k = options.top_k
        self.seed = options.seed
        self.previous_k = options.previous_k
        self.query_previous_k = options.query_previous_k

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        return await counted(self._decide(task, observation, history),
                             self.client.tracker.prices)

    async def _decide(self, task: Task, observation: Observation,
                      history: Sequence[Step]) -> AgentDecision:
        html, cands = tree_to_cleaned_html(observation.axtree)
        if not cands:
            return AgentDecision(error="no actionable element on the page")
        previous = tuple(action_text(s.action) for s in history if s.action is not None)
        query = build_query(task.intent, previous, self.query_previous_k)
        scores = self.ranker.score(query, [text for _, text in cands])
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], i))
        ranks = {cands[i][0]: r for r, i in enumerate(order)}
        step = M2WStep(
            annotation_id=task.task_id, action_uid=f"step-{len(history)}",
            confirmed_task=task.intent, previous_actions=previous, cleaned_html=html,
            # The gold operation is unknown on a live page; the tournament never reads it.
            operation=Operation(op="CLICK"),
            neg_candidates=tuple(Candidate(backend_node_id=cid, rank=ranks[cid])
                                 for cid, _ in cands))
        pred = await run_tournament(step, self.ask, seed=self.seed, top_k=self.top_k,
                                    previous_k=self.previous_k)
        reasoning = f"MindAct: {(pred.meta or {}).get('rounds', 0)} multiple-choice rounds"
        if pred.element is None:
            return AgentDecision(action=Action(kind=ActionKind.STOP, value=""),
                                 reasoning=f"{reasoning}; no element fits the task any more")
        op = (pred.op or "CLICK").upper()
        if op == "TYPE":
            action = Action(kind=ActionKind.TYPE, element_id=pred.element, value=pred.value or "")
        elif op == "SELECT":
            action = Action(kind=ActionKind.SELECT, element_id=pred.element,
                            value=pred.value or "")
        else:
            action = Action(kind=ActionKind.CLICK, element_id=pred.element)
        return AgentDecision(action=action, reasoning=reasoning)
