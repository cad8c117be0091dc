"""Model use behind one step (what the agent's model calls cost to decide it), so a reader
can see which steps were expensive, not only the episode's total."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel


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

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens
