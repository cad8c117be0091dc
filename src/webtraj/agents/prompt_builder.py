"""What the `llm` agent sees at a step, built in one place: the agent sends these messages,
curation writes them as each record's prompt, and training takes the records as they are. A
model trained on curated data (by `webtraj train` or by TRL directly on the JSONL) is thus
trained on the very prompts the agent sends, worked example included.

`PromptOptions` are the builder's settings: the `llm` agent's options, and what a curated
dataset's `stats.json` records under `prompt`."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pydantic import Field

from webtraj.agents.plugins import StrictOptions
from webtraj.agents.prompting import (
    EXAMPLE_ASSISTANT,
    EXAMPLE_USER,
    PromptHistory,
    system_prompt,
    tree_with_points,
    user_prompt,
)
from webtraj.llm.messages import Message
from webtraj.llm.tokens import trim_tree
from webtraj.model.action import ActionSet
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Step

# A chat turn in the OpenAI wire form, as the curated JSONL stores it.
Turn = dict[str, str]


class PromptOptions(StrictOptions):
    """How the prompt is built (the defaults are the `llm` agent's)."""

    history_window: int = Field(default=8, ge=0, description="previous steps shown")
    tree_tokens: int = Field(default=6_000, ge=200, description="accessibility-tree budget")
    few_shot: bool = Field(default=True, description="include the worked example")
    action_set: ActionSet = Field(default=ActionSet.IDS, description="actions by element id "
                                  "(ids), at viewport coordinates (coords), or both")


def fit_tree(axtree: str, query: list[str], tree_tokens: int) -> str:
    """`trim_tree(axtree, tree_tokens, query=query).text`, faster. `trim_tree` charges a line
    at most its UTF-8 length plus one, so a tree whose byte length fits the budget comes back
    unchanged: skip the per-line estimate then (same text, most of curation's cost at
    scale)."""
    if len(axtree.encode("utf-8")) + 1 <= tree_tokens:
        return axtree
    return trim_tree(axtree, tree_tokens, query=query).text


class PromptBuilder:
    """The message list for (task, observation, earlier steps) under one set of options."""

    def __init__(self, options: PromptOptions | None = None) -> None:
        self.options = options or PromptOptions()
        self.system = system_prompt(self.options.action_set)
        # The worked example acts by id: shown only where ids are in the set.
        self.example = (self.options.few_shot
                        and self.options.action_set is not ActionSet.COORDS)

    def tree(self, task: Task, observation: Observation) -> str:
        """The page's tree as the prompt shows it: trimmed to the budget around the task's
        words, with element centres where the set acts at points."""
        query = [task.intent, *(str(c.value) for c in task.constraints)]
        tree = fit_tree(observation.axtree, query, self.options.tree_tokens)
        if self.options.action_set is not ActionSet.IDS:
            tree = tree_with_points(tree, observation.boxes)
        return tree

    def turns(self, task: Task, observation: Observation,
              history: Sequence[Step] | PromptHistory) -> list[Turn]:
        """The messages in wire form: system, the worked example (when used), the step's
        user turn."""
        out = [{"role": "system", "content": self.system}]
        if self.example:
            out += [{"role": "user", "content": EXAMPLE_USER},
                    {"role": "assistant", "content": EXAMPLE_ASSISTANT}]
        out.append({"role": "user", "content": user_prompt(
            task, observation, history, tree=self.tree(task, observation),
            window=self.options.history_window)})
        return out

    def messages(self, task: Task, observation: Observation,
                 history: Sequence[Step] | PromptHistory) -> list[Message]:
        """The same messages, typed for the LLM client."""
        return [Message(role=t["role"], content=t["content"])  # type: ignore[arg-type]
                for t in self.turns(task, observation, history)]


@lru_cache(maxsize=16)
def prompt_builder(options: PromptOptions) -> PromptBuilder:
    """One builder per set of options (curation asks for one per trajectory)."""
    return PromptBuilder(options)
