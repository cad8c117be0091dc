"""Agents layer: the agent protocol, plug-in loading and the built-in agents (replay,
heuristic, llm, mindact)."""

from webtraj.agents.protocol import Agent, AgentDecision
from webtraj.agents.registry import (
    AGENT_NAMES,
    LLMAgentOptions,
    MindActOptions,
    agent_names,
    check_agent_options,
    make_agent,
)

__all__ = ["AGENT_NAMES", "Agent", "AgentDecision", "LLMAgentOptions", "MindActOptions",
           "agent_names", "check_agent_options", "make_agent"]
