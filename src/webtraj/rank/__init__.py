"""Rank layer: candidate rankers for Mind2Web (BM25 by default; MiniLM bi-encoder and any
cross-encoder with the `ml` extra) and their Recall@k / MRR."""

from webtraj.rank.bm25 import BM25Ranker
from webtraj.rank.query import build_query
from webtraj.rank.rank_step import Ranker, rank_step, step_candidate_texts
from webtraj.rank.ranks_file import StepRanking, apply_ranking, read_rankings, write_rankings
from webtraj.rank.recall import RecallReport, best_rank, recall_report

__all__ = ["BM25Ranker", "Ranker", "RecallReport", "StepRanking", "apply_ranking",
           "best_rank", "build_query", "rank_step", "read_rankings", "recall_report",
           "step_candidate_texts", "write_rankings"]


def make_ranker(name: str, model_path: str | None = None) -> Ranker:
    """`bm25`, `minilm` (optionally another bi-encoder path) or `cross` (needs a path)."""
    if name == "bm25":
        return BM25Ranker()
    if name == "minilm":
        from webtraj.rank.neural import BiEncoderRanker

        return BiEncoderRanker(model_path)
    if name == "cross":
        if not model_path:
            raise ValueError("the cross-encoder ranker needs --model PATH")
        from webtraj.rank.neural import CrossEncoderRanker

        return CrossEncoderRanker(model_path)
    raise ValueError(f"unknown ranker {name!r}: use bm25, minilm or cross")
