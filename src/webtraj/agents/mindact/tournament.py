"""The MindAct multiple-choice tournament over a step's top-k candidates.

Candidates are shuffled with a seeded RNG (per step, so results do not depend on the order
steps are run in), then asked in groups of 5 plus "None of the above"; each group's winner
goes to the back of the queue, until one candidate is left. If the last groups reject
everything, the step has no prediction (outcome `none_of_the_above`). A reply that cannot be
read (no answer letter, or a letter that names no option) is not taken for "none of the
above": the tournament stops and the step's outcome is `unparseable`, with the reply kept.
Groups are asked one after another because a winner joins the queue behind the candidates
still waiting, as in the reference.

Deliberate differences: a step with a single candidate is asked about it once (the reference
never asks and so never predicts); the reference reads an unreadable reply as "none of the
above"."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from webtraj.agents.mindact.answer import parse_choice
from webtraj.agents.mindact.prompt import build_choice_prompt
from webtraj.agents.mindact.settings import PREDICT_DEFAULTS
from webtraj.dom.cleaned import DomParseError
from webtraj.dom.page import CleanedPage
from webtraj.formats.mind2web.predictions import PredictionOutcome, StepPrediction
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.model.base import FrozenModel

Ask = Callable[[str], Awaitable[str]]
GROUP_SIZE = 5


class Round(FrozenModel):
    candidates: tuple[str, ...]
    reply: str
    picked: str | None = None


@dataclass
class TournamentTrace:
    rounds: list[Round] = field(default_factory=list)
    unreadable_replies: int = 0


def top_candidates(step: M2WStep, top_k: int = PREDICT_DEFAULTS.top_k) -> list[str]:
    """Positives then negatives ranked below `top_k` (all of them when ranks are unknown)."""
    out: list[str] = []
    for c in step.pos_candidates + step.neg_candidates:
        if (c.rank is None or c.rank < top_k) and c.backend_node_id not in out:
            out.append(c.backend_node_id)
    return out


def step_rng(seed: int, step: M2WStep) -> random.Random:
    return random.Random(f"{seed}:{step.annotation_id}:{step.action_uid}")


def step_page(step: M2WStep, issues: IssueLog | None) -> CleanedPage | None:
    """The step's page, or None (reported to `issues`) when it is not well-formed."""
    try:
        return CleanedPage.parse(step.cleaned_html or "")
    except DomParseError as exc:
        if issues is not None:
            issues.report(step.source, f"{exc}; no prediction", action_uid=step.action_uid,
                          annotation_id=step.annotation_id, field="cleaned_html")
        return None


def no_prediction(step: M2WStep, reason: str, trace: TournamentTrace | None = None, *,
                  outcome: PredictionOutcome, reply: str | None = None) -> StepPrediction:
    meta: dict[str, object] = {"reason": reason}
    if trace is not None:
        meta["rounds"] = len(trace.rounds)
    if reply is not None:
        meta["reply"] = reply[:500]
    return StepPrediction(annotation_id=step.annotation_id, action_uid=step.action_uid,
                          element=None, meta=meta, outcome=outcome)


async def run_tournament(step: M2WStep, ask: Ask, *, seed: int = PREDICT_DEFAULTS.seed,
                         top_k: int = PREDICT_DEFAULTS.top_k,
                         group_size: int = GROUP_SIZE, issues: IssueLog | None = None,
                         previous_k: int = PREDICT_DEFAULTS.previous_k) -> StepPrediction:
    page = step_page(step, issues)
    if page is None:
        return no_prediction(step, "unparseable cleaned_html",
                             outcome=PredictionOutcome.BAD_PAGE)
    queue = [c for c in top_candidates(step, top_k) if c in page.index]
    if not queue:
        return no_prediction(step, "no candidate on the page",
                             outcome=PredictionOutcome.NO_CANDIDATES)
    step_rng(seed, step).shuffle(queue)
    trace = TournamentTrace()
    final: tuple[str, str, str] | None = None
    single = len(queue) == 1
    while len(queue) > 1 or single:
        single = False
        group, queue = queue[:group_size], queue[group_size:]
        prompt = build_choice_prompt(step, page, group, previous_k=previous_k)
        reply = await ask(prompt.text)
        ans = parse_choice(reply)
        picked = None if ans.none_of_the_above else prompt.element_for(ans.letter)
        trace.rounds.append(Round(candidates=tuple(group), reply=reply, picked=picked))
        if not ans.readable or (picked is None and not ans.none_of_the_above):
            trace.unreadable_replies += 1
            why = ("no answer letter in the reply" if not ans.readable else
                   f"answer {ans.letter} names none of the {len(group)} options")
            return no_prediction(step, why, trace, outcome=PredictionOutcome.UNPARSEABLE,
                                 reply=reply)
        if picked is not None:
            queue.append(picked)
            final = (picked, ans.op, ans.value)
    if not queue or final is None:
        return no_prediction(step, "every candidate was rejected", trace,
                             outcome=PredictionOutcome.NONE_OF_THE_ABOVE)
    return StepPrediction(annotation_id=step.annotation_id, action_uid=step.action_uid,
                          element=final[0], op=final[1], value=final[2],
                          meta={"rounds": len(trace.rounds)},
                          outcome=PredictionOutcome.PREDICTED)

