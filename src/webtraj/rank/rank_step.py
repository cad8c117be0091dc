"""Ranking one Mind2Web step: candidate texts from the page, scores from a ranker, ranks
0..n-1 (ties keep data order). A page that cannot be parsed is reported and its candidates
are ranked on the tag and attributes recorded in the data instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from webtraj.dom.candidate_text import attributes_text
from webtraj.dom.cleaned import DomParseError
from webtraj.dom.page import CleanedPage
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.rank.query import PREVIOUS_K, build_query
from webtraj.rank.ranks_file import StepRanking


class Ranker(Protocol):
    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


def step_candidate_texts(step: M2WStep, issues: IssueLog | None = None) -> dict[str, str]:
    ids = list(dict.fromkeys(c.backend_node_id for c in step.candidates))
    fallback = {c.backend_node_id: attributes_text(c.tag, c.attributes)
                for c in step.candidates}
    if not step.cleaned_html:
        return {i: fallback[i] for i in ids}
    try:
        page = CleanedPage.parse(step.cleaned_html)
    except DomParseError as exc:
        if issues is not None:
            issues.report(step.source, f"{exc}; ranked on candidate attributes",
                          action_uid=step.action_uid, annotation_id=step.annotation_id,
                          field="cleaned_html")
        return {i: fallback[i] for i in ids}
    return page.candidate_texts(ids, fallback=fallback)


def ranks_from_scores(ids: Sequence[str], scores: Sequence[float]) -> dict[str, int]:
    order = sorted(range(len(ids)), key=lambda i: -scores[i])
    return {ids[i]: r for r, i in enumerate(order)}


def rank_step(step: M2WStep, ranker: Ranker, issues: IssueLog | None = None, *,
              previous_k: int = PREVIOUS_K) -> StepRanking:
    texts = step_candidate_texts(step, issues)
    ids = list(texts)
    scores = ranker.score(build_query(step.confirmed_task, step.previous_actions, previous_k),
                          [texts[i] for i in ids])
    return StepRanking(annotation_id=step.annotation_id, action_uid=step.action_uid,
                       ranker=ranker.name, ranks=ranks_from_scores(ids, scores),
                       scores=dict(zip(ids, scores, strict=True)))
