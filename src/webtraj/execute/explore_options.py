"""The settings of an exploration (`webtraj explore`), declared once: the command takes its
options' defaults, bounds and help from them. A module of its own so that the command line
reads them without importing the exploration itself."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from webtraj.generate.options import DUPLICATE_DEFAULTS
from webtraj.model.base import FrozenModel
from webtraj.model.exploration import ExplorerPolicy
from webtraj.model.suite_registry import default_suite


class ExploreOptions(FrozenModel):
    """What an exploration does; `webtraj explore` offers each field as an option."""

    suite: str = Field(default_factory=default_suite, description="Suite whose sites are "
                       "explored (its oracle labels the episodes): booking.")
    episodes: int = Field(default=10, ge=1, description="Episodes to explore (the sites take "
                          "turns).")
    sites: tuple[str, ...] = Field(default=(), description="Comma-separated sandbox sites "
                                   "(default all five).")
    policy: ExplorerPolicy = Field(default="persona", description="persona (no model) or llm.")
    seed: int = Field(default=0, description="Seed of personas and choices: the same seed "
                      "gives the same episodes.")
    today: str | None = Field(default=None, description="Sandbox date, YYYY-MM-DD (default: "
                              "today).")
    interval: int = Field(default=3, ge=1, description="Actions between labeled prefixes (and "
                          "pruning checks).")
    patience: int = Field(default=2, ge=1, description="Checks in a row without a new "
                          "sub-task before an episode is pruned.")
    max_steps: int = Field(default=30, ge=1, description="Steps per episode at most.")
    workers: int = Field(default=1, ge=1, description="Browser worker processes.")
    llm: str | None = None
    no_cache: bool = False
    labeler: Literal["rule", "llm"] = Field(default="rule", description=(
        "How a label is worded: rule, or llm (a model's rewrite, checked to state exactly the "
        "constraints)."))
    embedder: str = Field(default=DUPLICATE_DEFAULTS.embedder, description="Near-duplicate "
                          "instructions by auto, minilm or ngram (as `webtraj tasks generate`).")
    threshold: float | None = Field(default=None, description="Similarity above which an "
                                    "instruction is a near-duplicate (default per embedder).")
    replay: bool = Field(default=True, description="Replay the labeled tasks into "
                         "OUT/labeled.")
    screenshots: bool = True
