"""Ranker output on disk: one line per step, `{"annotation_id", "action_uid", "ranker",
"ranks": {backend_node_id: rank}, "scores": {backend_node_id: score}}` (rank 0 = best)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import orjson
from pydantic import Field, ValidationError

from webtraj.formats.mind2web.steps import Candidate, IssueLog, M2WStep
from webtraj.model.base import FrozenModel


class StepRanking(FrozenModel):
    annotation_id: str
    action_uid: str
    ranker: str = ""
    ranks: dict[str, int]
    scores: dict[str, float] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.annotation_id, self.action_uid)


def write_rankings(path: str | Path, rankings: Iterable[StepRanking]) -> int:
    n = 0
    with Path(path).open("wb") as f:
        for r in rankings:
            f.write(orjson.dumps(r.model_dump()) + b"\n")
            n += 1
    return n


def read_rankings(path: str | Path, issues: IssueLog | None = None
                  ) -> dict[tuple[str, str], StepRanking]:
    issues = issues if issues is not None else IssueLog()
    out: dict[tuple[str, str], StepRanking] = {}
    with Path(path).open("rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = StepRanking.model_validate(orjson.loads(line))
            except (orjson.JSONDecodeError, ValidationError) as exc:
                issues.report(f"{path}:{lineno}", f"bad ranking line: {str(exc)[:200]}",
                              skipped=True)
                continue
            out[r.key] = r
    return out


def _rerank(cands: tuple[Candidate, ...], ranks: Mapping[str, int],
            scores: Mapping[str, float]) -> tuple[Candidate, ...]:
    return tuple(c.model_copy(update={"rank": ranks.get(c.backend_node_id),
                                      "score": scores.get(c.backend_node_id)})
                 for c in cands)


def apply_ranking(step: M2WStep, ranking: StepRanking | None) -> M2WStep:
    """The step with candidate ranks replaced by `ranking` (unranked candidates get None)."""
    if ranking is None:
        return step
    return step.model_copy(update={
        "pos_candidates": _rerank(step.pos_candidates, ranking.ranks, ranking.scores),
        "neg_candidates": _rerank(step.neg_candidates, ranking.ranks, ranking.scores),
    })
