"""Model use as webtraj records it: per model (`Usage`, the form of run totals and of a
trajectory's agent usage) and per step (`StepUsage`, what one decision's calls cost, so a
reader can see which steps were expensive). The counting itself is the llm layer's
(`webtraj.llm.usage.UsageTracker`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_serializer

from webtraj.model.base import FrozenModel


def _without_zero_images(out: dict[str, Any]) -> dict[str, Any]:
    if out.get("image_tokens") == 0:
        del out["image_tokens"]
    return out


class ModelUsage(FrozenModel):
    calls: int = 0
    http_requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Sum of wall time of calls that reached the endpoint (retries and backoff included).
    latency_s: float = 0.0
    # None while no price is known for the model.
    cost_usd: float | None = None
    # The images' share of `prompt_tokens`, by OpenAI's tile rule (llm.tokens.image_tokens)
    # over the calls that reached the endpoint; `prompt_tokens` is the server's figure, which
    # already includes them. Left out of the JSON while 0 (text-only usage keeps its bytes).
    image_tokens: int = 0

    @model_serializer(mode="wrap")
    def _no_images_as_before(self, handler: Any) -> dict[str, Any]:
        return _without_zero_images(handler(self))

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def mean_latency_s(self) -> float | None:
        fetched = self.calls - self.cache_hits - self.failures
        return self.latency_s / fetched if fetched > 0 else None

    def __add__(self, other: ModelUsage) -> ModelUsage:
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return ModelUsage(
            calls=self.calls + other.calls,
            http_requests=self.http_requests + other.http_requests,
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            failures=self.failures + other.failures,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=sum(costs) if costs else None,
            image_tokens=self.image_tokens + other.image_tokens,
        )


class Usage(FrozenModel):
    """Usage per model name (never per endpoint URL, which may be private)."""

    models: dict[str, ModelUsage] = Field(default_factory=dict)

    @property
    def total(self) -> ModelUsage:
        out = ModelUsage()
        for m in self.models.values():
            out = out + m
        return out

    def merge(self, other: Usage) -> Usage:
        models = dict(self.models)
        for name, u in other.models.items():
            models[name] = models[name] + u if name in models else u
        return Usage(models=models)

    def to_run_usage(self) -> dict[str, Any]:
        total = self.total
        return {"total": {**total.model_dump(mode="json"), "total_tokens": total.total_tokens},
                "models": {k: v.model_dump(mode="json") for k, v in self.models.items()}}

    @classmethod
    def from_run_usage(cls, data: Mapping[str, Any] | None) -> Usage:
        if not data:
            return cls()
        return cls(models={k: ModelUsage.model_validate(v)
                           for k, v in (data.get("models") or {}).items()})


class StepUsage(FrozenModel):
    # Model names called for this step (never endpoint URLs, which may be private).
    models: tuple[str, ...] = ()
    calls: int = Field(default=0, ge=0)
    cache_hits: int = Field(default=0, ge=0)
    failures: int = Field(default=0, ge=0)
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    # Wall time of the calls that reached the endpoint (retries and backoff included).
    latency_s: float = Field(default=0.0, ge=0)
    # None while no price is known for the model(s).
    cost_usd: float | None = None
    # The images' share of `prompt_tokens` (see ModelUsage.image_tokens).
    image_tokens: int = Field(default=0, ge=0)

    @model_serializer(mode="wrap")
    def _no_images_as_before(self, handler: Any) -> dict[str, Any]:
        return _without_zero_images(handler(self))

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def of(cls, usage: Usage | None) -> StepUsage | None:
        """One decision's usage, all models together; None when it made no model call."""
        if usage is None or not any(u.calls for u in usage.models.values()):
            return None
        called = {name: u for name, u in usage.models.items() if u.calls}
        total = Usage(models=called).total
        return cls(models=tuple(called), calls=total.calls, cache_hits=total.cache_hits,
                   failures=total.failures, prompt_tokens=total.prompt_tokens,
                   completion_tokens=total.completion_tokens,
                   latency_s=max(total.latency_s, 0.0), cost_usd=total.cost_usd,
                   image_tokens=total.image_tokens)
