"""Ranker quality: Recall@k (a positive ranked below k) and MRR (1 / (best rank + 1))."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import Field

from webtraj.model.base import FrozenModel

KS = (1, 5, 10, 20, 50)


class RecallReport(FrozenModel):
    recall: dict[str, float] = Field(default_factory=dict)
    mrr: float = 0.0
    n_steps: int = 0
    # Steps without any positive candidate (they count as misses).
    n_no_positive: int = 0
    # The ranking measured (e.g. "bm25, written to ranks.jsonl").
    ranking: str = ""


def best_rank(positives: Sequence[str], ranks: Mapping[str, int]) -> int | None:
    found = [ranks[p] for p in positives if p in ranks]
    return min(found) if found else None


def recall_report(best_ranks: Iterable[int | None], ks: Sequence[int] = KS) -> RecallReport:
    rs = list(best_ranks)
    n = len(rs)
    if n == 0:
        return RecallReport(recall={str(k): 0.0 for k in ks})
    return RecallReport(
        recall={str(k): sum(1 for r in rs if r is not None and r < k) / n for k in ks},
        mrr=sum(1.0 / (r + 1) for r in rs if r is not None) / n,
        n_steps=n, n_no_positive=sum(1 for r in rs if r is None))
