# %% [markdown]
# # webtraj from a notebook
# Run an agent defined right here on MiniWoB++, look at the scores, score the run again.
# Run as a script: `python examples/notebook.py runs/notebook` (needs `webtraj[miniwob]`).

# %%
import re
import sys

import webtraj.api as wt
from webtraj.agents import AgentDecision
from webtraj.model.action_text import parse_action

out = sys.argv[1] if len(sys.argv) > 1 else "runs/notebook"


# %% An agent defined in the notebook runs in this process (workers rebuild only agents
# whose class they can import).
class TypeAndSubmit:
    name = "type-and-submit"

    async def act(self, task, observation, history):
        word = re.findall(r'"([^"]+)"', task.intent)[0]
        ids = {role: re.search(rf"\[(\d+)\] \[{role}\]", observation.axtree)
               for role in ("textbox", "button")}
        if len(history) == 0:
            return AgentDecision(action=parse_action(
                f"type [{ids['textbox'].group(1)}] [{word}] [0]"))
        if len(history) == 1:
            return AgentDecision(action=parse_action(f"click [{ids['button'].group(1)}]"))
        return AgentDecision(action=parse_action("stop []"))


# %%
result = wt.run(suite="miniwob", task_ids=["enter-text"], seeds=range(2),
                agent=TypeAndSubmit(), out=out, max_steps=5, screenshots=False)
print("success rate:", result.success_rate("miniwob"))
for t in result.summary.trajectories:
    print(t.task_id, t.n_steps, t.scores)

# %% Score again (from the stored HAR files alone: no browser, no server).
again = wt.rescore(result, evaluators=["miniwob"])
print("rescored success rate:", again.success_rate("miniwob"))
print("report:", again.report)
