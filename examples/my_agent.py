"""Your own agent in 15 lines: click the element named in quotes in the task, then stop.

    PYTHONPATH=examples webtraj run --suite miniwob --task-ids click-button --seeds 0-9 \
        --agent my_agent:QuotedClickAgent --agent-option role=button --workers 2 --out runs/mine
"""

import re

from pydantic import BaseModel, ConfigDict

from webtraj.agents import AgentDecision
from webtraj.model.action_text import parse_action


class QuotedClickAgent:
    name = "quoted-click"

    class Options(BaseModel):  # validated from --agent-option / --agent-options
        model_config = ConfigDict(extra="forbid")
        role: str = "button"

    def __init__(self, options: Options) -> None:
        self.options = options

    async def act(self, task, observation, history):
        wanted = re.findall(r'"([^"]+)"', task.intent)
        for line in observation.axtree.splitlines():
            if not history and wanted and f"] [{self.options.role}] [{wanted[0]}]" in line:
                element = line.strip().split("]")[0] + "]"
                return AgentDecision(action=parse_action(f"click {element}"),
                                     reasoning=f"The task names {wanted[0]!r}.")
        return AgentDecision(action=parse_action("stop []"), reasoning="Nothing left to do.")
