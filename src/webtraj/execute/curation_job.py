"""What one curation job is (`webtraj curate`, `webtraj.api.curate`, the distill recipe):
its run, output, judge settings and how the work is spread, declared once; the command takes
its options' defaults, bounds and help from these fields. A module of its own so that the
command line reads them without importing the curation itself."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from webtraj.curate.settings import CurateSettings

Executor = Literal["local", "ray"]


class CurateRun(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    run: Path
    out: Path
    settings: CurateSettings
    val_fraction: float = Field(default=0.1, ge=0.0, le=0.99,
                                description="Share of tasks in validation.")
    executor: Executor = Field(default="local", description="local | ray")
    chunk_size: int = Field(default=64, ge=1, description="Trajectories per work unit.")
    rescore: bool = Field(default=True, description="Compute the missing per-step scores "
                          "(else trajectories without them are dropped).")
    # Cores to use: local worker processes, or the CPUs of a Ray instance started here
    # (None: every core). Local with one core (or one chunk) curates in this process.
    num_cpus: int | None = Field(default=None, ge=1, description="Processes (local) or CPUs "
                                 "of a Ray instance started here (default: every core).")
    ray_address: str | None = Field(default=None, description="Join this Ray cluster (with "
                                    "--executor ray); chunks travel to its workers through "
                                    "Ray, so they need not see the run's disk.")
