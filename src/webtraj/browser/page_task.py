"""A page that states its own task: when it has started it, its instruction, facts about it,
and when it has ended it (MiniWoB++'s pages do, through the script the suite injects).

The episode reads these in its own page load, so a suite whose instruction lives in the page
needs no second load to learn it, and an episode ends as soon as the page says it is over.
Each field is a JavaScript expression evaluated in the episode's page."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel


class PageTask(FrozenModel):
    # Truthy once the page shows its task (the first observation waits for it).
    started: str
    # The page's instruction; it becomes the task's intent when the task has none.
    intent: str | None = None
    # An object of facts about the task (merged into the task's metadata, never replacing).
    metadata: str | None = None
    # Truthy once the page has ended the task (the episode stops there, after that step).
    ended: str | None = None
    # How long the page may take to start its task before the episode is an error.
    start_timeout_ms: int = Field(default=10_000, ge=0)
