"""The evaluator protocol: a trajectory (and its artifacts folder) in, Scores out.

Evaluators are async so that LLM judges can overlap their calls; a synchronous evaluator
subclasses `SyncEvaluator` and writes `score()` only. An evaluator that cannot decide
returns `Score.unscored(name, reason)`, and bad input gives `Score.unscored(..., error=True)`
with a message naming the file, record and field: never a 0 or a 1.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from webtraj.model import Score, Trajectory


@dataclass
class EvalEnv:
    """Run-wide things evaluators may need (not per-task options), built from the run record
    (`webtraj.evaluate.run_scoring.RunEnvironments`).

    `site_urls` maps site names or placeholders to base URLs (WebArena-Verified and the
    sandbox); `oracle` reads sandbox pages (a `webtraj.sites.oracle.Oracle` for those URLs);
    `llm` is the model client judges share (one concurrency limit for the whole run).
    """

    site_urls: Mapping[str, Any] | None = None
    # True when `site_urls` are the sites the run itself served (the sandbox): every request
    # an agent made to them is at a known origin, so a trace with none there was made
    # against other URLs and cannot be judged. Logs of other tools keep the reference rules.
    served_sites: bool = False
    oracle: Any = None
    llm: Any = None
    # Per-run memo shared by evaluators (e.g. a parsed HAR reused by several evaluators).
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)


@runtime_checkable
class Evaluator(Protocol):
    name: str

    async def evaluate(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        """Scores for one trajectory; `artifacts` is its folder (HAR, screenshots)."""
        ...


class SyncEvaluator(ABC):
    """Base for evaluators that do no I/O worth awaiting."""

    name: str = "evaluator"

    @abstractmethod
    def score(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]: ...

    async def evaluate(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        return self.score(trajectory, artifacts)
