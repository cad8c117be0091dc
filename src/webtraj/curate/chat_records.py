"""Fine-tuning records in chat form: exactly the messages the `llm` agent sends at a step
(`PromptBuilder`'s, worked example included by default), and the answer it should give (the
constraint-based evaluation paper's fine-tuning record: task, previous actions, URL,
accessibility tree -> reasoning and next action).

Actions recorded by role and name (the replay agent's reference actions) are written with the
id that element had in the tree of their observation, as the agent would write them: a model
trained on the records then takes the same actions by id, and its own history reads the same
as the history in the records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webtraj.agents.prompt_builder import PromptOptions, prompt_builder
from webtraj.agents.prompt_urls import PromptUrls
from webtraj.agents.prompting import PromptHistory
from webtraj.curate.instance import Instance, KeptStep
from webtraj.dom.tree_text import parse_tree
from webtraj.model.action import Action
from webtraj.model.action_text import ACTION_PHRASE, action_text
from webtraj.model.trajectory import Observation, Step, Trajectory


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


def render(traj: Trajectory, inst: Instance, options: PromptOptions | None = None,
           files: Path | None = None) -> list[dict[str, Any]]:
    """One {"messages": [...]} record per kept step, in step order: the prompt the agent
    with these options sends at that step, then the answer. `files` is the trajectory's
    folder, where its screenshots are (needed when the options send images; the records
    then carry them as data URLs, which the dataset writer turns into TRL's vision form,
    `curate.vision`)."""
    task = inst.task
    builder = prompt_builder(options or PromptOptions())
    urls = PromptUrls(task)
    history = PromptHistory()  # steps 0..t-1 of the kept step at t (kept steps go forward)
    out = []
    for step in inst.steps:
        if step.t < history.steps:
            history = PromptHistory()
        for s in traj.steps[history.steps:step.t]:
            history.add(step_by_id(s))
        obs = observation_at(traj, step.t)
        prompt = builder.build(task, obs, history, files=files)
        messages = prompt.turns
        if prompt.view is not None:  # a point is answered in the pixels of the image sent
            recorded = traj.steps[step.t].view if step.t < len(traj.steps) else None
            step = step.model_copy(update={"action": prompt.view.in_image(step.action,
                                                                          recorded)})
        messages.append({"role": "assistant", "content": urls.show(
            assistant_text(step.reasoning, step, obs.axtree))})
        out.append({"messages": messages})
    return out
