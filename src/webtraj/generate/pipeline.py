"""Task generation: ask a model for tasks per difficulty level, keep those that pass the
checks, attach constraints, drop near-duplicates, until each level has its count (or the
rounds run out). Every rejected proposal is counted by reason; none is written."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from webtraj.evaluate.constraints.extraction import (
    ExtractionError,
    extract_constraints,
    says_search,
)
from webtraj.generate.dates import find_dates
from webtraj.generate.levels import difficulty_for
from webtraj.generate.options import ConstraintSource, GenerateOptions
from webtraj.generate.prompt import messages
from webtraj.generate.proposals import Proposal, ProposalReply, read_proposal
from webtraj.generate.similarity import DuplicateIndex, Embedder, normalize
from webtraj.generate.sites import SiteInfo
from webtraj.generate.validate import Checked, check_intent
from webtraj.llm import LLMClient, LLMError
from webtraj.model.base import FrozenModel
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Difficulty, Task
from webtraj.sites.common.dates import long_date

MAX_EXAMPLES = 20


class Rejection(FrozenModel):
    reason: str
    level: str
    text: str
    detail: str = ""


class GenerationReport(FrozenModel):
    site: str
    today: dt.date
    levels: tuple[str, ...]
    per_level: int
    accepted: dict[str, int] = Field(default_factory=dict)
    mean_constraints: dict[str, float] = Field(default_factory=dict)
    rounds: int = 0
    calls: int = 0
    failed_calls: int = 0
    unparseable_replies: int = 0
    proposals: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    dates_rewritten: int = 0
    constraints_from: dict[str, int] = Field(default_factory=dict)
    embedder: str = ""
    threshold: float = 0.0
    notes: tuple[str, ...] = ()
    examples: tuple[Rejection, ...] = ()

    @property
    def total_rejected(self) -> int:
        return sum(self.rejected.values())


@dataclass
class _Candidate:
    level: Difficulty
    proposal: Proposal
    checked: Checked
    vec: Any = None


class _Tally:
    def __init__(self) -> None:
        self.rejected: Counter[str] = Counter()
        self.examples: list[Rejection] = []
        self.sources: Counter[str] = Counter()

    def reject(self, reason: str, level: Difficulty, text: str, detail: str = "") -> None:
        self.rejected[reason] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(Rejection(reason=reason, level=level.value, text=text[:300],
                                           detail=detail[:300]))


def task_id_for(site: SiteInfo, intent: str) -> str:
    return f"gen.{site.key}.{hashlib.sha1(normalize(intent).encode()).hexdigest()[:10]}"


async def generate_tasks(client: LLMClient, site: SiteInfo, opts: GenerateOptions, *,
                         embedder: Embedder, threshold: float,
                         existing: Sequence[Task] = (), notes: Sequence[str] = ()
                         ) -> tuple[list[Task], GenerationReport]:
    index = DuplicateIndex(embedder, threshold)
    index.add([t.intent for t in existing])
    previous = [t.intent for t in existing if t.site in (None, site.key)]
    kept: dict[Difficulty, list[Task]] = {lv: [] for lv in opts.levels}
    tally = _Tally()
    report = dict(calls=0, failed_calls=0, unparseable_replies=0, proposals=0,
                  dates_rewritten=0, rounds=0)
    params = {} if opts.seed is None else {"seed": opts.seed}

    for rnd in range(opts.max_rounds):
        wanted = {lv: opts.per_level - len(kept[lv]) for lv in opts.levels}
        asks = [(lv, min(opts.batch, n + max(1, n // 2))) for lv, n in wanted.items() if n > 0]
        if not asks:
            break
        report["rounds"] += 1
        accepted_texts = [t.intent for lv in opts.levels for t in kept[lv]]
        calls = [client.structured(messages(site, lv, k, previous + accepted_texts, opts.today),
                                   ProposalReply, sample=rnd, **params) for lv, k in asks]
        report["calls"] += len(calls)
        results = await asyncio.gather(*calls, return_exceptions=True)
        candidates: list[_Candidate] = []
        for (lv, _), res in zip(asks, results, strict=True):
            if isinstance(res, LLMError):
                report["failed_calls"] += 1
                tally.reject("call_failed", lv, "", str(res))
                continue
            if isinstance(res, BaseException):
                raise res
            if res.failure is not None:
                report["unparseable_replies"] += 1
                tally.reject("unparseable_reply", lv, res.failure.raw, res.failure.error)
                continue
            for item in res.value.tasks:
                report["proposals"] += 1
                prop = read_proposal(item)
                if isinstance(prop, str):
                    tally.reject("unparseable_proposal", lv, str(item), prop)
                    continue
                checked = check_intent(prop.intent, opts.today, strict=opts.strict_dates)
                if checked.reason is not None:
                    tally.reject(checked.reason, lv, prop.intent, checked.detail)
                    continue
                report["dates_rewritten"] += checked.rewritten_dates
                candidates.append(_Candidate(lv, prop, checked))
        candidates = _unique(candidates, index, tally)
        found = await asyncio.gather(*(_constraints(client, c, opts.constraints)
                                       for c in candidates))
        for c, (cons, source, why) in zip(candidates, found, strict=True):
            if cons is None:
                tally.reject("no_constraints", c.level, c.checked.intent, why)
                continue
            level = difficulty_for(len(cons))
            if level not in kept:
                tally.reject("off_level", c.level, c.checked.intent,
                             f"{len(cons)} constraints make it {level.value}")
                continue
            if len(kept[level]) >= opts.per_level:
                tally.reject("level_full", c.level, c.checked.intent, level.value)
                continue
            tally.sources[source] += 1
            index.add([c.checked.intent], [c.vec])
            kept[level].append(_task(site, c, cons, level, opts, client))
    tasks = [t for lv in opts.levels for t in kept[lv]]
    mean = {lv.value: round(sum(len(t.constraints) for t in kept[lv]) / len(kept[lv]), 2)
            for lv in opts.levels if kept[lv]}
    return tasks, GenerationReport(
        site=site.key, today=opts.today, levels=tuple(lv.value for lv in opts.levels),
        per_level=opts.per_level, accepted={lv.value: len(kept[lv]) for lv in opts.levels},
        mean_constraints=mean, rejected=dict(sorted(tally.rejected.items())),
        constraints_from=dict(tally.sources), embedder=embedder.name, threshold=threshold,
        notes=tuple(notes), examples=tuple(tally.examples), **report)


def _unique(cands: list[_Candidate], index: DuplicateIndex, tally: _Tally) -> list[_Candidate]:
    """Drop proposals that repeat a known task or an earlier proposal of the same round."""
    if not cands:
        return []
    vecs = index.embedder.encode([c.checked.intent for c in cands])
    seen = DuplicateIndex(index.embedder, index.threshold)
    out = []
    for c, v in zip(cands, vecs, strict=True):
        hit = index.match(c.checked.intent, v) or seen.match(c.checked.intent, v)
        if hit is not None:
            how, other, sim = hit
            tally.reject(f"duplicate_{how}", c.level, c.checked.intent,
                         f"{sim:.3f} with: {other[:200]}")
            continue
        seen.add([c.checked.intent], [v])
        c.vec = v
        out.append(c)
    return out


async def _constraints(client: LLMClient, c: _Candidate, mode: ConstraintSource
                       ) -> tuple[tuple[Constraint, ...] | None, str, str]:
    """(constraints, where they came from, why there are none)."""
    why = ""
    if mode != "extract" and c.proposal.constraints:
        cons, why = _from_model(c)
        if cons is not None:
            return cons, "model", ""
        if mode == "model":
            return None, "model", why
    elif mode == "model":
        return None, "model", "the model gave no constraints"
    try:
        found = await extract_constraints(client, c.checked.intent)
    except ExtractionError as exc:
        return None, "extractor", f"{why}; {exc}" if why else str(exc)
    return _normalize_dates(found, c.checked), "extractor", ""


def _from_model(c: _Candidate) -> tuple[tuple[Constraint, ...] | None, str]:
    intent = c.checked.intent
    seen: dict[str, Constraint] = {}
    select = bool(c.proposal.selects_listing)
    for item in c.proposal.constraints or ():
        if item.name == MADE_SELECTION:
            select = select or item.value is True
            continue
        if item.name not in seen:
            seen[item.name] = Constraint(name=item.name, value=item.value, type=item.type)
    if not seen:
        return None, "the model gave no constraints"
    # the constraint-based evaluation paper: one specific listing and no "search" -> made_selection.
    if select and not says_search(intent):
        seen[MADE_SELECTION] = Constraint(name=MADE_SELECTION, value=True,
                                          type=ConstraintType.BOOLEAN)
    cons = _normalize_dates(tuple(seen.values()), c.checked)
    for con in cons:
        if con.type == ConstraintType.DATE and (
                not isinstance(con.value, str) or not find_dates(con.value)
                or find_dates(con.value)[0].date not in c.checked.dates):
            return None, f"date constraint {con.name}={con.value!r} is not a date of the task"
    return cons, ""


def _normalize_dates(cons: tuple[Constraint, ...], checked: Checked) -> tuple[Constraint, ...]:
    """Date values written like the intent's dates ("Month DD, YYYY")."""
    out = []
    for con in cons:
        if con.type == ConstraintType.DATE and isinstance(con.value, str):
            found = find_dates(con.value)
            if len(found) == 1 and found[0].end_date is None:
                con = con.model_copy(update={"value": long_date(found[0].date)})
        out.append(con)
    return tuple(out)


def _task(site: SiteInfo, c: _Candidate, cons: tuple[Constraint, ...], level: Difficulty,
          opts: GenerateOptions, client: LLMClient) -> Task:
    return Task(
        task_id=task_id_for(site, c.checked.intent), intent=c.checked.intent, site=site.key,
        start_url=site.start_url, constraints=cons, difficulty=level,
        metadata={"generated": {"model": client.spec.model, "asked_level": c.level.value,
                                "today": opts.today.isoformat(), "seed": opts.seed}})
