"""Pruning an exploration (NNetNav): every `interval` steps the prefix is read as a
sub-task; once the episode has reached one, it stops when `patience` checks in a row name
no new sub-task (the same one again, or none)."""

from __future__ import annotations

from dataclasses import dataclass, field

from webtraj.agents.explore.page import page_state
from webtraj.model.trajectory import Observation
from webtraj.sites.common.state import PageState
from webtraj.sites.hindsight import hindsight_constraints

LabelKey = frozenset[tuple[str, str]]


def label_key(states: list[PageState]) -> LabelKey | None:
    found = hindsight_constraints(states)
    return None if found is None else frozenset((c.name, repr(c.value)) for c in found)


@dataclass
class Pruner:
    interval: int = 3
    patience: int = 2
    states: list[PageState] = field(default_factory=list)
    seen: set[LabelKey] = field(default_factory=set)
    strikes: int = 0

    def observe(self, obs: Observation) -> None:
        state = page_state(obs)
        if state is not None:
            self.states.append(state)

    def should_stop(self, step: int) -> bool:
        """Called before acting at step `step` (the prefix has `step` actions)."""
        if step == 0 or step % self.interval:
            return False
        key = label_key(self.states)
        if key is not None and key not in self.seen:
            self.seen.add(key)
            self.strikes = 0
            return False
        if self.seen:
            self.strikes += 1
        return self.strikes >= self.patience
