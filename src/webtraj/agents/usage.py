"""Counting what an agent's decision cost: the model calls made while deciding, reported
on the decision (`AgentDecision.usage`), the agent protocol's way of telling webtraj."""

from __future__ import annotations

from collections.abc import Awaitable

from webtraj.agents.protocol import AgentDecision
from webtraj.llm.usage import PriceTable, usage_scope
from webtraj.model.errors import InfrastructureError


async def counted(decide: Awaitable[AgentDecision],
                  prices: PriceTable | None = None) -> AgentDecision:
    """`decide`'s decision with the model calls made while awaiting it (in this task and
    those it starts), priced where `prices` knows the model. An infrastructure failure on
    the way carries them instead (`InfrastructureError.usage`): the episode ends in an error
    and its failed calls still count."""
    with usage_scope(prices) as calls:
        try:
            decision = await decide
        except InfrastructureError as exc:
            exc.usage = calls.snapshot()
            raise
    return decision.with_usage(calls.snapshot())
