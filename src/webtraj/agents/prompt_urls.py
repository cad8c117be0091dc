"""URLs as a model is shown them. A sandbox site is served on different ports in every run;
its prompts (at acting time, and in the curated records a student trains on) name it by its
stable origin (webtraj.sites.stable_urls), so the training prompt is exactly the acting
prompt whichever ports either run had. A `goto` the model writes with the stable origin is
sent to the origin the site is served on."""

from __future__ import annotations

import re

from webtraj.model.action import Action, ActionKind
from webtraj.model.task import Task


class PromptUrls:
    def __init__(self, task: Task) -> None:
        from webtraj.sites.stable_urls import stable_origin

        pair = stable_origin(task)
        self.served, self.stable = pair if pair else (None, None)

    @staticmethod
    def _swap(text: str, old: str | None, new: str | None) -> str:
        if not old or not new or old == new:
            return text
        return re.sub(re.escape(old) + r"(?![0-9])", new, text)

    def show(self, text: str) -> str:
        """`text` with the served origin written as the stable one."""
        return self._swap(text, self.served, self.stable)

    def served_action(self, action: Action | None) -> Action | None:
        """A `goto` to the stable origin, sent to the served one instead."""
        if action is None or action.kind is not ActionKind.GOTO or not action.value:
            return action
        url = self._swap(action.value, self.stable, self.served)
        return action if url == action.value else action.model_copy(update={"value": url})
