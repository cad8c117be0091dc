"""The settings of a task generation (`webtraj tasks generate`, its near-duplicate test
included) and of a refresh of task dates (`webtraj tasks refresh-dates`), declared once: the
commands take their options' defaults, bounds and help from them. A module of its own so
that the command line reads them without importing the pipeline."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.task import Difficulty

ConstraintSource = Literal["auto", "model", "extract"]


class GenerateOptions(FrozenModel):
    """What one generation asks for and how hard it tries."""

    per_level: int = Field(ge=1, description="Tasks to keep per difficulty level.")
    levels: tuple[Difficulty, ...]
    today: dt.date
    seed: int | None = Field(default=None, description="Sampling seed sent to the model.")
    max_rounds: int = Field(default=4, ge=1, description="Rounds of proposals.")
    batch: int = Field(default=10, ge=1, description="Tasks asked for per call.")
    constraints: ConstraintSource = Field(default="auto", description="auto (the model's, "
                                          "else extracted), model or extract.")
    strict_dates: bool = Field(default=False, description="Reject dates not written Month DD, "
                               "YYYY (default: rewrite them).")


class RefreshSettings(FrozenModel):
    """Settings of a refresh of task dates (`generate/refresh.py` takes them one by one)."""

    seed: int = Field(default=0, description="Seed for the choice of new dates.")


REFRESH_DEFAULTS = RefreshSettings()


class DuplicateSettings(FrozenModel):
    """How a near-duplicate instruction is told (`webtraj tasks generate`; `webtraj explore`
    takes the same embedder)."""

    embedder: str = Field(default="auto", description="Near-duplicate test: auto, minilm or "
                          "ngram.")
    threshold: float | None = Field(default=None, ge=0.0, le=1.0, description=(
        "Similarity at or above which a task is a duplicate (default: 0.92 minilm, 0.8 "
        "ngram)."))


DUPLICATE_DEFAULTS = DuplicateSettings()
