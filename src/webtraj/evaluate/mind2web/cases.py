"""Mind2Web steps as `Eval` cases, following the Multimodal-Mind2Web cookbook's recipe: the model
sees the task, a
capped summary of the page's interactive elements and the last three actions, and answers
with an operation (and value); scorers compare it with the step's gold operation."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from webtraj.agents.mindact.screenshots import step_screenshot
from webtraj.dom.interactive_elements import format_previous_actions, interactive_summary
from webtraj.formats.mind2web.steps import M2WStep
from webtraj.llm.images import data_url

OPTIONS = ("A. Click the element the task needs next\n"
           "B. Type text into an input field\n"
           "C. Select an option from a dropdown")
OPTION_OF = {"CLICK": "A", "TYPE": "B", "SELECT": "C"}


def summary_prompt(step: M2WStep, *, max_items: int = 50, max_actions: int = 3) -> str:
    page = interactive_summary(step.cleaned_html or "", max_items=max_items)
    history = format_previous_actions(list(step.previous_actions), max_actions)
    return (f"Task: {step.confirmed_task}\n\nInteractive elements on the page:\n{page}\n\n"
            f"Previous actions:\n{history}\n\nWhat is the next action? Choose one:\n{OPTIONS}")


def step_case(step: M2WStep, *, screenshot_max_side: int | None = None,
              **kw: Any) -> dict[str, Any]:
    """One case; with `screenshot_max_side` its input also has `screenshot`: the step's
    screenshot as a data URL, downscaled by the live agent's rule (what the task function
    sends as an `image_url` part)."""
    op = step.operation.op
    given: dict[str, Any] = {"prompt": summary_prompt(step, **kw), "task": step.confirmed_task,
                             "website": step.website}
    if screenshot_max_side is not None:
        given["screenshot"] = data_url(step_screenshot(step, screenshot_max_side))
    return {
        "id": f"{step.annotation_id}__{step.action_uid}",
        "input": given,
        "expected": {"op": op, "option": OPTION_OF.get(op, ""), "value": step.operation.value,
                     "elements": list(step.positive_ids)},
        "metadata": {"annotation_id": step.annotation_id, "action_uid": step.action_uid,
                     "website": step.website, "domain": step.domain, "op_type": op},
    }


def step_cases(steps: Iterable[M2WStep], *, screenshot_max_side: int | None = None,
               **kw: Any) -> Iterator[dict[str, Any]]:
    for s in steps:
        yield step_case(s, screenshot_max_side=screenshot_max_side, **kw)
