"""Fine-tuning records in chat form: exactly what the `llm` agent (without few-shot examples)
is shown at a step, and the answer it should give (the constraint-based evaluation paper's
fine-tuning record: task,
previous actions, URL, accessibility tree -> reasoning and next action).

Actions recorded by role and name (the replay agent's reference actions) are written with the
id that element had in the tree of their observation, as the agent would write them: a model
trained on the records then takes the same actions by id, and its own history reads the same
as the history in the records."""

from __future__ import annotations

from typing import Any

from webtraj.agents.prompt_urls import PromptUrls
from webtraj.agents.prompting import SYSTEM_PROMPT, PromptHistory, user_prompt
from webtraj.curate.instance import Instance, KeptStep
from webtraj.dom.tree_text import parse_tree
from webtraj.llm.tokens import trim_tree
from webtraj.model.action import ACTION_PHRASE, Action, action_text
from webtraj.model.trajectory import Observation, Step, Trajectory

# The llm agent's defaults (webtraj.agents.llm_agent.LLMAgent), so records match its view.
HISTORY_WINDOW = 8
TREE_TOKENS = 6_000


def by_id(action: Action | None, axtree: str) -> Action | None:
    """A role-and-name action with the id its element has in `axtree` (the nth element of
    that role and exact name, as the browser picks it); unchanged when it already has an id
    or the element is not in the tree."""
    if action is None or action.element_id or action.target is None:
        return action
    t = action.target
    ids = [e.id for e in parse_tree(axtree) if e.id and e.role == t.role
           and (e.name == t.name if t.exact else t.name.lower() in e.name.lower())]
    if len(ids) <= t.nth:
        return action
    return action.model_copy(update={"element_id": ids[t.nth], "target": None})


def step_by_id(s: Step) -> Step:
    """A step whose action is written with its element id (see `by_id`)."""
    if s.action is None or s.action.element_id or s.action.target is None:
        return s
    return s.model_copy(update={"action": by_id(s.action, s.observation.axtree)})


def history_by_id(steps: list[Step]) -> list[Step]:
    return [step_by_id(s) for s in steps]


def assistant_text(reasoning: str, step: KeptStep, axtree: str = "") -> str:
    """Reasoning, then the action after the fixed phrase, as the agent writes it."""
    why = reasoning.strip() or "I take the next step toward the task."
    return f"{why}\n{ACTION_PHRASE} ```{action_text(by_id(step.action, axtree))}```"


def observation_at(traj: Trajectory, t: int) -> Observation:
    if t < len(traj.steps):
        return traj.steps[t].observation
    assert traj.final_observation is not None, "t' = T needs the final observation"
    return traj.final_observation


def agent_tree(axtree: str, query: list[str], tree_tokens: int) -> str:
    """The tree as the llm agent would get it. `trim_tree` charges a line at most its UTF-8
    length plus one, so a tree whose byte length fits the budget comes back unchanged: skip
    the per-line estimate then (same text, most of the cost at scale)."""
    if len(axtree.encode("utf-8")) + 1 <= tree_tokens:
        return axtree
    return trim_tree(axtree, tree_tokens, query=query).text


def render(traj: Trajectory, inst: Instance, *, history_window: int = HISTORY_WINDOW,
           tree_tokens: int = TREE_TOKENS) -> list[dict[str, Any]]:
    """One {"messages": [...]} record per kept step, in step order."""
    task = inst.task
    query = [task.intent, *(str(c.value) for c in task.constraints)]
    urls = PromptUrls(task)
    history = PromptHistory()  # steps 0..t-1 of the kept step at t (kept steps go forward)
    out = []
    for step in inst.steps:
        if step.t < history.steps:
            history = PromptHistory()
        for s in traj.steps[history.steps:step.t]:
            history.add(step_by_id(s))
        obs = observation_at(traj, step.t)
        tree = agent_tree(obs.axtree, query, tree_tokens)
        prompt = user_prompt(task, obs, history, tree=tree, window=history_window)
        out.append({"messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": urls.show(
                assistant_text(step.reasoning, step, obs.axtree))},
        ]})
    return out
