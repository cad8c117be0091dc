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
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from webtraj.formats.har_reader import HarEntry, parse_trace
from webtraj.model import Score, Trajectory
from webtraj.store.files import read_artifact

if TYPE_CHECKING:  # the client and the sandbox are built by the run's scoring, not here
    from webtraj.llm import LLMClient
    from webtraj.sites.oracle import Oracle

# A site's base URL, or several (WebArena-Verified sites may be served at more than one).
SiteBase = str | tuple[str, ...] | list[str]


class TraceCache:
    """The parsed network trace of the trajectory being scored, shared by the evaluators
    that read it (several WebArena-Verified checks on one HAR parse it once); one trace is
    kept at a time. The trace is read through `store.files` (a link, or a name that leaves
    the trajectory's folder, is refused: InputError with the reason)."""

    def __init__(self) -> None:
        self._key: tuple[str, str] | None = None
        self._entries: list[HarEntry] = []

    def entries(self, folder: Path, name: str) -> list[HarEntry]:
        key = (str(folder.absolute()), name)
        if key != self._key:
            self._key, self._entries = None, []  # a trace that fails to load is not kept
            data = read_artifact(folder, name)
            self._entries = parse_trace(data, name, file=f"{folder}/{name}")
            self._key = key
        return self._entries


@dataclass
class EvalEnv:
    """Run-wide things evaluators may need (not per-task options), built from the run record
    (`webtraj.evaluate.run_scoring.RunEnvironments`).

    `site_urls` maps site names or placeholders to base URLs (WebArena-Verified and the
    sandbox); `oracle` reads sandbox pages for those URLs; `llm` is the model client judges
    share (one concurrency limit for the whole run).
    """

    site_urls: Mapping[str, SiteBase] | None = None
    # True when `site_urls` are the sites the run itself served (the sandbox): every request
    # an agent made to them is at a known origin, so a trace with none there was made
    # against other URLs and cannot be judged. Logs of other tools keep the reference rules.
    served_sites: bool = False
    oracle: Oracle | None = None
    llm: LLMClient | None = None
    # The trajectory's parsed network trace, read once for every evaluator that needs it.
    traces: TraceCache = field(default_factory=TraceCache, repr=False)


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
