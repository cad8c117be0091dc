"""The scripted MiniWoB++ policy that benchmarks/miniwob_vs_browsergym.py runs in both
frameworks: the same decision from the same instruction and the same elements (role and
accessible name, read from each framework's text form of the accessibility tree).

`plan` is plain Python (no webtraj import) so BrowserGym's virtual environment can load this
file too; `ScriptedPolicy` is the webtraj agent around it
(`--agent policy:ScriptedPolicy` with benchmarks/miniwob/ on PYTHONPATH)."""

from __future__ import annotations

import re

# click-button, enter-text, click-checkboxes
_WEBTRAJ_ELEMENT = re.compile(r"\[(\d+)\] \[(\w+)\] \[([^\]]*)\]")
_BROWSERGYM_ELEMENT = re.compile(r"\[([^\]\s]+)\] (\w+) '([^']*)'")


def elements(tree: str, pattern: re.Pattern[str]) -> list[tuple[str, str, str]]:
    """(id, role, name) of every element line of a text accessibility tree."""
    return [m.groups() for m in pattern.finditer(tree)]  # type: ignore[misc]


def _find(found: list[tuple[str, str, str]], role: str, name: str | None = None) -> str | None:
    for eid, r, n in found:
        if r == role and (name is None or n.strip() == name):
            return eid
    return None


def plan(intent: str, done: int, found: list[tuple[str, str, str]]
         ) -> tuple[str, str, str] | None:
    """The next action as (kind, element id, text), kind `click` or `type`, after `done`
    actions; None when the instruction is not one of the three tasks' or the element is
    missing."""
    quoted = re.findall(r'"([^"]*)"', intent)
    if intent.startswith("Click on the") and quoted:  # click-button
        eid = _find(found, "button", quoted[0]) if done == 0 else None
        return ("click", eid, "") if eid else None
    if intent.startswith("Enter") and quoted:  # enter-text
        if done >= 2:
            return None
        eid = _find(found, "textbox") if done == 0 else _find(found, "button", "Submit")
        return (("type", eid, quoted[0]) if done == 0 else ("click", eid, "")) if eid else None
    m = re.match(r"Select (.*) and click Submit", intent)  # click-checkboxes
    if m:
        names = [] if m.group(1).strip() == "nothing" else \
            [w.strip() for w in m.group(1).split(",") if w.strip()]
        if done > len(names):
            return None
        eid = _find(found, "checkbox", names[done]) if done < len(names) else \
            _find(found, "button", "Submit")
        return ("click", eid, "") if eid else None
    return None


class ScriptedPolicy:
    """`plan` as a webtraj agent (stop when it has nothing to do)."""

    name = "miniwob-scripted"

    async def act(self, task, observation, history):
        from webtraj.agents import AgentDecision
        from webtraj.model.action import Action, ActionKind

        step = plan(task.intent, len(history), elements(observation.axtree, _WEBTRAJ_ELEMENT))
        if step is None:
            return AgentDecision(action=Action(kind=ActionKind.STOP, value=""))
        kind, eid, text = step
        if kind == "type":
            return AgentDecision(action=Action(kind=ActionKind.TYPE, element_id=eid,
                                               value=text, press_enter=False))
        return AgentDecision(action=Action(kind=ActionKind.CLICK, element_id=eid))
