"""MindAct for offline Mind2Web: candidate prompts, the multiple-choice tournament, the
direct-generation baseline, and predictors from files or callables; `live_agent` runs the same
ranking and tournament as the `mindact` agent on a live page (imported by the agent registry
when that agent is asked for, not here)."""

from webtraj.agents.mindact.answer import ChoiceAnswer, parse_choice, parse_direct
from webtraj.agents.mindact.predictors import (
    CallablePredictor,
    DirectPredictor,
    FilePredictor,
    MultiChoicePredictor,
    Predictor,
    llm_ask,
    predict_all,
)
from webtraj.agents.mindact.prompt import build_choice_prompt, build_direct_prompt
from webtraj.agents.mindact.tournament import run_tournament, top_candidates

__all__ = ["CallablePredictor", "ChoiceAnswer", "DirectPredictor", "FilePredictor",
           "MultiChoicePredictor", "Predictor", "build_choice_prompt", "build_direct_prompt",
           "llm_ask", "parse_choice", "parse_direct", "predict_all", "run_tournament",
           "top_candidates"]
