"""The constraint-judge protocol: for each observation, one ConstraintCheck per constraint.

A judge sees only what the constraint-based evaluation paper allows (URL and page: tree, screenshot
or site state), never
the action history, which inflates scores (the judge assumes typed values took effect)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from webtraj.evaluate.constraints.csr import ObservationCSR
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Trajectory


class ConstraintJudge(Protocol):
    """A judge may set `reads_page = False` when it judges without the page (the oracle
    reads the site's state): otherwise an observation marked `unreadable` is not given to
    it and is unknown for it."""

    name: str

    async def judge(self, task: Task, observations: Sequence[Observation],
                    trajectory: Trajectory, artifacts: Path | None) -> list[ObservationCSR]:
        """CSR and checks for each observation given (in order)."""
        ...
