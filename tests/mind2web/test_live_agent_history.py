"""The live `mindact` agent asks its questions as `mind2web predict` asks them and as
`export-sft` trains a model on them: the same number of previous actions (one setting), while
its ranking query keeps MindAct stage 1's own."""

from __future__ import annotations

import asyncio

from webtraj.agents.mindact.live_agent import MindActAgent
from webtraj.agents.mindact.settings import MindActOptions
from webtraj.model import Action, ActionKind, Observation, Step, Task
from webtraj.rank.query import PREVIOUS_K
from webtraj.train.mind2web_sft import SftExportSettings

TREE = "[1] [button] [Search]\n[2] [textbox] [Where to?]\n[3] [link] [Deals]"


def test_questions_show_the_previous_actions_predict_and_export_show() -> None:
    agent = MindActAgent(client=None)  # type: ignore[arg-type]  # its model is `ask` below
    asked: list[str] = []

    async def ask(prompt: str, images=()) -> str:
        asked.append(prompt)
        return "Answer: A."

    agent.ask = ask
    history = [Step(index=i, observation=Observation(url="http://127.0.0.1/", axtree=TREE),
                    action=Action(kind=ActionKind.CLICK, element_id=str(100 + i)))
               for i in range(7)]
    task = Task(task_id="t", intent="find a deal", start_url="http://127.0.0.1/")
    asyncio.run(agent._decide(task, Observation(url="http://127.0.0.1/", axtree=TREE),
                              history))
    shown = SftExportSettings().previous_k
    assert MindActOptions().previous_k == shown == 5
    assert asked and all(sum(f"[{100 + i}]" in p for i in range(7)) == shown for p in asked)
    assert MindActOptions().query_previous_k == PREVIOUS_K == 3
