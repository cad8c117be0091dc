"""Per-step model usage: the difference of the agent's model client counters across one
decision. Works for any agent that keeps an `LLMClient` as `client` (llm, mindact); others
get None."""

from __future__ import annotations

from webtraj.agents.protocol import Agent
from webtraj.llm.usage import Usage
from webtraj.model.step_usage import StepUsage


class StepUsageMeter:
    def __init__(self, agent: Agent) -> None:
        client = getattr(agent, "client", None)
        self._client = client if callable(getattr(client, "usage", None)) else None
        self._before = self._read()

    def _read(self) -> Usage | None:
        usage = self._client.usage() if self._client is not None else None
        return usage if isinstance(usage, Usage) else None

    def step(self) -> StepUsage | None:
        """Usage since the last call (or since the meter was made)."""
        now = self._read()
        if now is None:
            return None
        before, self._before = self._before or Usage(), now
        names, calls, hits, fails, prompt, completion, latency = [], 0, 0, 0, 0, 0, 0.0
        costs: list[float] = []
        for name, u in now.models.items():
            b = before.models.get(name)
            d_calls = u.calls - (b.calls if b else 0)
            if d_calls <= 0:
                continue
            names.append(name)
            calls += d_calls
            hits += u.cache_hits - (b.cache_hits if b else 0)
            fails += u.failures - (b.failures if b else 0)
            prompt += u.prompt_tokens - (b.prompt_tokens if b else 0)
            completion += u.completion_tokens - (b.completion_tokens if b else 0)
            latency += u.latency_s - (b.latency_s if b else 0.0)
            if u.cost_usd is not None:
                costs.append(u.cost_usd - ((b.cost_usd or 0.0) if b else 0.0))
        if not calls:
            return None
        return StepUsage(models=tuple(names), calls=calls, cache_hits=hits, failures=fails,
                         prompt_tokens=prompt, completion_tokens=completion,
                         latency_s=max(latency, 0.0), cost_usd=sum(costs) if costs else None)
