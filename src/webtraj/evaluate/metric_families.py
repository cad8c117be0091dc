"""Headline metrics per evaluator family: what each kind of evaluator's scores mean in a
summary (constraints: SR and CSR; miniwob: success rate and mean reward; WebArena-Verified:
pass rate over a task's checks and each check's pass rate; outcome judges: success rate).

An evaluator module defines its `Family` here; the family is part of the evaluator's
registry entry (`evaluate.registry.BUILTINS`), and summaries (report, viewer, CLI) ask
`registry.family_of(stored evaluator name)` and never branch on names themselves. A stored
name is the registered name, optionally followed by what the instance checks
(`constraints:rule`, `NetworkEventEvaluator[GET __HOTELS__/search]`, `miniwob#2`). Scores of
a plug-in evaluator that declares no family (a `family` attribute) are read as a generic
score (mean and success rate).

Rates come with a Wilson 95% interval; every metric carries the n it is computed over.
Episodes that ended in an infrastructure error are never part of a metric (they are counted
apart as errors by the summaries)."""

from __future__ import annotations

import math
import re
from typing import Literal

from webtraj.model.base import FrozenModel

# What a metric reads from each scored (evaluator, trajectory):
# - "success": value >= 1 (a rate, with its interval);
# - "mean": the value itself, averaged;
# - "detail": the numeric `details[key]` of the score, averaged over scores that have it;
# - "all_pass": per trajectory, every evaluator of the group scored 1 (a rate).
Source = Literal["success", "mean", "detail", "all_pass"]


class Metric(FrozenModel):
    key: str
    label: str
    source: Source
    detail: str | None = None
    help: str = ""

    @property
    def is_rate(self) -> bool:
        return self.source in ("success", "all_pass")


class Family(FrozenModel):
    name: str
    label: str
    metrics: tuple[Metric, ...]
    # One summary row per family over all its instances (a task's checks together: the
    # WebArena-Verified pass), besides one row per instance; else one row per instance.
    grouped: bool = False
    # Rank among families when a run has several (the first is a run's headline).
    order: int = 50
    # The instance listed first when a run has several (the oracle among constraint judges).
    preferred: str | None = None
    # What one score's value is (and its per-step values), as pages label it.
    value_label: str = "score"


SR = Metric(key="sr", label="SR", source="success",
            help="success rate: share of scored episodes whose score is 1")
GENERIC = Family(name="score", label="score", order=90, metrics=(
    Metric(key="success", label="success", source="success",
           help="share of scored episodes whose score is 1"),
    Metric(key="mean", label="mean", source="mean", help="mean score")))

_BASE = re.compile(r"^[^:\[#]+")


def base_name(evaluator: str) -> str:
    """The registered name behind a stored evaluator name (`constraints:rule` ->
    `constraints`, `NetworkEventEvaluator[GET /x]#2` -> `NetworkEventEvaluator`)."""
    m = _BASE.match(evaluator)
    return m.group(0) if m else evaluator


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (95% by default); None for n = 0."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
