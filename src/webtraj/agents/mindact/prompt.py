"""Prompts for MindAct stage 2. The page is pruned around the asked candidates and shown as
the compact bracketed tree; the question lists the task, the recent actions and the options
(`A. None of the above`, then B, C, ... for the candidates in page order)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webtraj.agents.mindact.settings import PREDICT_DEFAULTS
from webtraj.dom.page import CleanedPage
from webtraj.formats.mind2web.steps import M2WStep

SYSTEM_PROMPT = (
    "You are a web agent. You see a simplified web page, a task and the actions done so "
    "far, and you choose the next action: which element to act on, and whether to CLICK it, "
    "TYPE text into it or SELECT an option in it.")

ANSWER_FORMAT = ("Reply on one line as `Answer: <letter>. Action: <CLICK|TYPE|SELECT> "
                 "Value: <text to type or option to select>`, for example "
                 "`Answer: C. Action: SELECT Value: Pickup`. Leave Value empty for CLICK.")

DIRECT_FORMAT = ("Reply as `Element: <the element, with its id=N>` then `Action: "
                 "<CLICK|TYPE|SELECT>` then `Value: <text>` on separate lines; reply "
                 "`Element: none` if no element on this page fits.")


@dataclass(frozen=True)
class ChoicePrompt:
    context: str
    question: str
    # (backend_node_id, short text) for letters B, C, ... in order.
    choices: list[tuple[str, str]]

    @property
    def text(self) -> str:
        return f"```\n{self.context}\n```\n\n{self.question}"

    def element_for(self, letter: str) -> str | None:
        i = ord(letter) - ord("B")
        return self.choices[i][0] if 0 <= i < len(self.choices) else None


def _history(step: M2WStep, previous_k: int) -> str:
    recent = list(step.previous_actions)[-previous_k:] if previous_k else []
    return "\n".join(recent) if recent else "None"


def _header(step: M2WStep, previous_k: int) -> str:
    return (f"The page above is what the browser shows. Task: {step.confirmed_task}\n"
            f"Actions done so far:\n{_history(step, previous_k)}\n")


def build_choice_prompt(step: M2WStep, page: CleanedPage, candidate_ids: Sequence[str], *,
                        previous_k: int = PREDICT_DEFAULTS.previous_k) -> ChoicePrompt:
    tr = page.pruned_tree(candidate_ids)
    # Page order (the order of id=N), as the option letters follow the page.
    choices = [(cid, (tr.choices or {})[cid]) for cid in tr.id_mapping]
    options = ["A. None of the above"]
    options += [f"{chr(66 + i)}. {text}" for i, (_, text) in enumerate(choices)]
    question = (_header(step, previous_k)
                + "Which element should be acted on next? If none of these fits, choose A.\n\n"
                + "\n".join(options) + "\n\n" + ANSWER_FORMAT)
    return ChoicePrompt(tr.text, question, choices)


@dataclass(frozen=True)
class DirectPrompt:
    text: str
    # The number shown as id=N -> backend_node_id.
    numbers: dict[int, str]


def build_direct_prompt(step: M2WStep, page: CleanedPage, candidate_ids: Sequence[str], *,
                        previous_k: int = PREDICT_DEFAULTS.previous_k) -> DirectPrompt:
    tr = page.pruned_tree(candidate_ids)
    text = (f"```\n{tr.text}\n```\n\n" + _header(step, previous_k)
            + "What is the next action?\n" + DIRECT_FORMAT)
    return DirectPrompt(text, {n: bid for bid, n in tr.id_mapping.items()})
