"""Flags on what a judge read: page text that talks to an evaluator or an agent (see
llm/untrusted.py), gathered per observation for the score's `suspected_injections`."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.llm.untrusted import MAX_FLAGS, find_injections
from webtraj.model.score import SuspectedInjection
from webtraj.model.trajectory import Observation


def observation_flags(observations: Sequence[Observation], first_index: int = 0,
                      answer: str | None = None) -> tuple[SuspectedInjection, ...]:
    """Suspected injections in the observations' tree and title (indexed from
    `first_index`) and in the agent's answer; each text flagged once, at most MAX_FLAGS."""
    found: list[SuspectedInjection] = []
    seen: set[tuple[str, str]] = set()
    parts = [(obs.axtree, first_index + i, "tree") for i, obs in enumerate(observations)]
    parts += [(obs.title, first_index + i, "title") for i, obs in enumerate(observations)]
    if answer:
        parts.append((answer, None, "answer"))
    for text, index, source in parts:
        for flag in find_injections(text or "", observation=index, source=source):
            if (flag.kind, flag.text) not in seen:
                seen.add((flag.kind, flag.text))
                found.append(flag)
            if len(found) >= MAX_FLAGS:
                return tuple(found)
    return tuple(found)
