"""Accounting of model use: calls, HTTP requests, retries, cache hits, tokens, latency and an
optional cost, per model. Totals merge (workers, resumed runs) and live in `run.json` under
`usage["llm"]`."""

from __future__ import annotations

import contextlib
import fnmatch
import threading
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.usage import ModelUsage, Usage

RUN_USAGE_KEY = "llm"


class Price(FrozenModel):
    """USD per million tokens."""

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)


class PriceTable(FrozenModel):
    """User-supplied prices by model name; `*` globs allowed (`gpt-4o*`). Exact names win."""

    prices: dict[str, Price] = Field(default_factory=dict)

    def lookup(self, model: str) -> Price | None:
        if model in self.prices:
            return self.prices[model]
        globs = [p for p in self.prices if any(c in p for c in "*?[") and
                 fnmatch.fnmatchcase(model, p)]
        return self.prices[max(globs, key=len)] if globs else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.lookup(model)
        if price is None:
            return None
        return (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1e6


def merge_run_usage(run_usage: Mapping[str, Any], usage: Usage, *,
                    key: str = RUN_USAGE_KEY) -> dict[str, Any]:
    """Return a copy of `RunInfo.usage` with these LLM totals added to what it already holds
    under `key` (`llm`: every model call; `agent`, `judges`: by role), e.g.
    `store.update_info(usage=merge_run_usage(store.info.usage, client.usage()))`."""
    out = dict(run_usage)
    before = Usage.from_run_usage(out.get(key))  # type: ignore[arg-type]
    out[key] = before.merge(usage).to_run_usage()
    return out


# A tracker that also counts the calls made in the current context (an asyncio task and the
# tasks it starts): how one evaluator's model use on one trajectory is told apart while
# other trajectories are judged concurrently through the same client.
_SCOPE: ContextVar[UsageTracker | None] = ContextVar("webtraj_usage_scope", default=None)


@contextlib.contextmanager
def usage_scope(prices: PriceTable | None = None) -> Iterator[UsageTracker]:
    """Count the model calls made inside the block (in this task and those it starts), with
    their cost where `prices` knows the model."""
    tracker = UsageTracker(prices)
    token = _SCOPE.set(tracker)
    try:
        yield tracker
    finally:
        _SCOPE.reset(token)


class UsageTracker:
    """Mutable, thread-safe counters behind `Usage` snapshots."""

    _FIELDS = ("calls", "http_requests", "retries", "cache_hits", "failures", "prompt_tokens",
               "completion_tokens", "latency_s", "image_tokens")

    def __init__(self, prices: PriceTable | None = None) -> None:
        self.prices = prices
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, float]] = {}
        self._cost: dict[str, float] = {}

    def add(self, model: str, **counts: float) -> None:
        scope = _SCOPE.get()
        if scope is not None and scope is not self:
            scope.add_own(model, **counts)
        self.add_own(model, **counts)

    def add_own(self, model: str, **counts: float) -> None:
        with self._lock:
            row = self._counts.get(model)
            if row is None:
                row = self._counts[model] = dict.fromkeys(self._FIELDS, 0)
            for k, v in counts.items():
                row[k] += v
            if self.prices is not None and ("prompt_tokens" in counts or
                                            "completion_tokens" in counts):
                c = self.prices.cost(model, int(counts.get("prompt_tokens", 0)),
                                     int(counts.get("completion_tokens", 0)))
                if c is not None:
                    self._cost[model] = self._cost.get(model, 0.0) + c

    def snapshot(self) -> Usage:
        with self._lock:
            return Usage(models={
                m: ModelUsage(**{k: (v if k == "latency_s" else int(v)) for k, v in row.items()},
                              cost_usd=self._cost.get(m))
                for m, row in self._counts.items()})
