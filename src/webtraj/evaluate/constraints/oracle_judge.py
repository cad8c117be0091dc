"""The `oracle` judge: the sandbox sites' own state, the ground truth for the other judges."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from webtraj.evaluate.constraints.csr import ObservationCSR
from webtraj.model.task import Task
from webtraj.model.trajectory import Observation, Trajectory


class OracleJudge:
    name = "oracle"
    # It reads the sites' state behind the URL, not the page: an unreadable page is no
    # obstacle to it.
    reads_page = False

    def __init__(self, oracle) -> None:
        # A webtraj.sites.oracle.Oracle for the sites the run was served from.
        self.oracle = oracle

    async def judge(self, task: Task, observations: Sequence[Observation],
                    trajectory: Trajectory, artifacts: Path | None) -> list[ObservationCSR]:
        out = []
        for i, obs in enumerate(observations):
            if self.oracle.site_for(obs.url) is None:
                out.append(ObservationCSR(None, reason=f"{obs.url} is not a sandbox site page"))
                continue
            step = self.oracle.check_url(task, obs.url, i)
            out.append(ObservationCSR(step.checks))
        return out
