"""Direct-generation baseline: the model sees the page pruned around all top-k candidates at
once and writes the element (by its `id=N`), the operation and the value."""

from __future__ import annotations

from webtraj.agents.mindact.answer import parse_direct
from webtraj.agents.mindact.prompt import build_direct_prompt
from webtraj.agents.mindact.settings import PREDICT_DEFAULTS
from webtraj.agents.mindact.tournament import Ask, no_prediction, step_page, top_candidates
from webtraj.formats.mind2web.predictions import PredictionOutcome, StepPrediction
from webtraj.formats.mind2web.steps import IssueLog, M2WStep


async def run_direct(step: M2WStep, ask: Ask, *, top_k: int = PREDICT_DEFAULTS.top_k,
                     issues: IssueLog | None = None,
                     previous_k: int = PREDICT_DEFAULTS.previous_k) -> StepPrediction:
    page = step_page(step, issues)
    if page is None:
        return no_prediction(step, "unparseable cleaned_html",
                             outcome=PredictionOutcome.BAD_PAGE)
    cands = [c for c in top_candidates(step, top_k) if c in page.index]
    if not cands:
        return no_prediction(step, "no candidate on the page",
                             outcome=PredictionOutcome.NO_CANDIDATES)
    prompt = build_direct_prompt(step, page, cands, previous_k=previous_k)
    reply = await ask(prompt.text)
    ans = parse_direct(reply)
    if ans.element_number is None:
        return no_prediction(step, "no `Element: ... id=N` in the reply",
                             outcome=PredictionOutcome.UNPARSEABLE, reply=reply)
    element = prompt.numbers.get(ans.element_number)
    if element is None:
        return no_prediction(step, f"id={ans.element_number} is none of the candidates",
                             outcome=PredictionOutcome.UNPARSEABLE, reply=reply)
    return StepPrediction(annotation_id=step.annotation_id, action_uid=step.action_uid,
                          element=element, op=ans.op or None, value=ans.value,
                          meta={"reply": reply[:500]}, outcome=PredictionOutcome.PREDICTED)
