"""MindAct's settings, each default declared once: which ranker orders a step's candidates
and how stage 2 chooses among them is shared by the offline commands (`webtraj mind2web
rank`, `predict`, `run`), the live `mindact` agent and the export of its training data
(`webtraj mind2web export-sft`); the commands take their options from these models
(`webtraj.cli.run_settings.setting`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from webtraj.formats.mind2web.steps import TOP_K
from webtraj.model.plugins import StrictOptions
from webtraj.rank.query import PREVIOUS_K


class RankSettings(StrictOptions):
    """MindAct's stage 1: which ranker orders a step's candidates (`webtraj mind2web rank`
    and `run`)."""

    ranker: str = Field(default="bm25", description="bm25, minilm or cross.")
    model: str | None = Field(default=None, description="Model path (cross-encoder, or "
                              "another bi-encoder).")


RANK_DEFAULTS = RankSettings()


class ChoiceSettings(StrictOptions):
    """Which candidates the model chooses among, and the seed of their shuffle."""

    top_k: int = Field(default=TOP_K, ge=1, description="Candidates per step, the best "
                       "ranked, that the model chooses among.")
    seed: int = Field(default=0, description="Seed of the candidate shuffle.")
    previous_k: int = Field(default=5, ge=0, description="Previous actions each question "
                            "shows.")


class PredictSettings(ChoiceSettings):
    """Settings of the offline predictions (`webtraj mind2web predict` and `run`)."""

    concurrency: int = Field(default=8, ge=1, description="Steps in flight.")


class MindActOptions(ChoiceSettings):
    """Options of the `mindact` agent (MindAct stage 1 ranker + stage 2 tournament)."""

    ranker: Literal["bm25", "minilm"] = RANK_DEFAULTS.ranker
    # Previous actions in the ranking query (stage 1; `previous_k`: in the questions).
    query_previous_k: int = Field(default=PREVIOUS_K, ge=0)


# The defaults, for the functions that take these settings one by one.
PREDICT_DEFAULTS = PredictSettings()
