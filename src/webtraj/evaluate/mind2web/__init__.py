"""Mind2Web in the evaluate layer: the reference step metrics (`step_metrics`), the `mind2web`
evaluator (`evaluator`) and Mind2Web steps as `Eval` cases (`cases`)."""

from webtraj.evaluate.mind2web.cases import step_case, step_cases, summary_prompt

__all__ = ["step_case", "step_cases", "summary_prompt"]
