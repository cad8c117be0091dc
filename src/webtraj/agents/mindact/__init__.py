"""MindAct for offline Mind2Web: candidate prompts, the multiple-choice tournament, the
direct-generation baseline, and predictors from files or callables; `live_agent` runs the same
ranking and tournament as the `mindact` agent on a live page (imported by the agent registry
when that agent is asked for, not here). `settings` holds their defaults; the agent registry
reads it at start-up, so the names below are imported when first used, not with the package."""

from __future__ import annotations

import importlib
from typing import Any

# Each name of the package and the module that defines it.
_HOMES = {
    "ChoiceAnswer": "answer", "parse_choice": "answer", "parse_direct": "answer",
    "CallablePredictor": "predictors", "DirectPredictor": "predictors",
    "FilePredictor": "predictors", "MultiChoicePredictor": "predictors",
    "Predictor": "predictors", "llm_ask": "predictors", "predict_all": "predictors",
    "build_choice_prompt": "prompt", "build_direct_prompt": "prompt",
    "run_tournament": "tournament", "top_candidates": "tournament",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
