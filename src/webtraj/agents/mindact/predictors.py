"""Ways to get a next-action prediction for a Mind2Web step, behind one async interface:
the multiple-choice tournament, the direct-generation baseline (both through an LLM), a
predictions file, or any Python callable."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from webtraj.agents.mindact.direct import run_direct
from webtraj.agents.mindact.prompt import SYSTEM_PROMPT
from webtraj.agents.mindact.screenshots import screenshot_part
from webtraj.agents.mindact.settings import PREDICT_DEFAULTS
from webtraj.agents.mindact.tournament import Ask, run_tournament
from webtraj.formats.mind2web.predictions import (
    PredictionOutcome,
    PredKey,
    StepPrediction,
    read_predictions,
)
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.llm.messages import ImagePart


class Predictor(Protocol):
    name: str

    async def predict(self, step: M2WStep) -> StepPrediction: ...


def with_screenshot(ask: Ask, step: M2WStep, max_side: int | None) -> Ask:
    """`ask` for one step: with `max_side`, every prompt of the step carries its screenshot
    (downscaled by the one rule; `ask` must take `images`, as `llm_ask`'s does)."""
    if max_side is None:
        return ask
    part = screenshot_part(step, max_side)
    return functools.partial(ask, images=(part,))  # type: ignore[call-arg]


class MultiChoicePredictor:
    name = "mindact-multichoice"

    def __init__(self, ask: Ask, *, seed: int = PREDICT_DEFAULTS.seed,
                 top_k: int = PREDICT_DEFAULTS.top_k,
                 issues: IssueLog | None = None, screenshot_max_side: int | None = None
                 ) -> None:
        self.ask, self.seed, self.top_k, self.issues = ask, seed, top_k, issues
        self.screenshot_max_side = screenshot_max_side

    async def predict(self, step: M2WStep) -> StepPrediction:
        return await run_tournament(step, with_screenshot(self.ask, step,
                                                          self.screenshot_max_side),
                                    seed=self.seed, top_k=self.top_k, issues=self.issues)


class DirectPredictor:
    name = "direct-generation"

    def __init__(self, ask: Ask, *, top_k: int = PREDICT_DEFAULTS.top_k,
                 issues: IssueLog | None = None,
                 screenshot_max_side: int | None = None) -> None:
        self.ask, self.top_k, self.issues = ask, top_k, issues
        self.screenshot_max_side = screenshot_max_side

    async def predict(self, step: M2WStep) -> StepPrediction:
        return await run_direct(step, with_screenshot(self.ask, step,
                                                      self.screenshot_max_side),
                                top_k=self.top_k, issues=self.issues)


class FilePredictor:
    """Predictions made elsewhere; a step without a line gets no prediction."""

    name = "file"

    def __init__(self, source: str | Path | Mapping[PredKey, StepPrediction],
                 issues: IssueLog | None = None) -> None:
        self.by_key = (dict(source) if isinstance(source, Mapping)
                       else read_predictions(source, issues))

    async def predict(self, step: M2WStep) -> StepPrediction:
        p = self.by_key.get(step.key)
        return p if p is not None else StepPrediction(
            annotation_id=step.annotation_id, action_uid=step.action_uid, element=None,
            meta={"reason": "no prediction in file"}, outcome=PredictionOutcome.MISSING)


def _coerce(step: M2WStep, out: Any) -> StepPrediction:
    if isinstance(out, StepPrediction):
        return out
    base = {"annotation_id": step.annotation_id, "action_uid": step.action_uid}
    if out is None:
        return StepPrediction(**base)
    if isinstance(out, Mapping):
        return StepPrediction(**{**base, **out})
    if isinstance(out, tuple) and len(out) == 3:
        return StepPrediction(**base, element=out[0], op=out[1], value=out[2] or "")
    raise TypeError(f"a predictor callable returned {type(out).__name__}; expected "
                    "StepPrediction, dict, (element, op, value) or None")


class CallablePredictor:
    """Wraps `fn(step)` (sync or async) returning a StepPrediction, a dict with `element`,
    `op`, `value`, an `(element, op, value)` tuple, or None (no prediction)."""

    def __init__(self, fn: Callable[[M2WStep], Any], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "callable")

    async def predict(self, step: M2WStep) -> StepPrediction:
        out = self.fn(step)
        if inspect.isawaitable(out):
            out = await out
        return _coerce(step, out)


def llm_ask(client: Any, *, system: str = SYSTEM_PROMPT, **params: Any
            ) -> Callable[..., Awaitable[str]]:
    """An `Ask` on top of `webtraj.llm.LLMClient` (cached, retried, rate-limited there);
    `images` go after the prompt's text in its user turn."""
    from webtraj.llm.messages import system as system_msg
    from webtraj.llm.messages import user

    async def ask(prompt: str, images: Sequence[ImagePart] = ()) -> str:
        comp = await client.chat([system_msg(system), user(prompt, images)], **params)
        return comp.text

    return ask


async def predict_all(steps: Iterable[M2WStep], predictor: Predictor, *,
                      concurrency: int = PREDICT_DEFAULTS.concurrency,
                      on_done: Callable[[StepPrediction], None] | None = None
                      ) -> list[StepPrediction]:
    """Predict every step with at most `concurrency` steps in flight; results keep the input
    order. A step whose predictor raises gets no prediction (the error is in `meta`)."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(step: M2WStep) -> StepPrediction:
        async with sem:
            try:
                p = await predictor.predict(step)
            except Exception as exc:  # a failed call must not sink the whole run
                p = StepPrediction(annotation_id=step.annotation_id,
                                   action_uid=step.action_uid, element=None,
                                   meta={"error": f"{type(exc).__name__}: {exc}"[:500]},
                                   outcome=PredictionOutcome.ERROR)
        if on_done is not None:
            on_done(p)
        return p

    return list(await asyncio.gather(*(one(s) for s in steps)))
