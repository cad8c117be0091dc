"""Rankers: BM25 (no model), MiniLM bi-encoder and a cross-encoder by path (extra `ml`), on
the real step; Recall@k and MRR."""

from __future__ import annotations

import pytest

from webtraj.rank import BM25Ranker, best_rank, build_query, rank_step, recall_report
from webtraj.rank.bm25 import tokenize
from webtraj.rank.rank_step import step_candidate_texts

# Ranks of the gold Search button (backend_node_id 8635) among the 468 candidates of the
# real step; the fine-tuned DeBERTa of the dataset put it at 2.
BM25_RANK = 41
MINILM_RANK = 375


def test_query_is_task_plus_last_three_actions():
    assert build_query("Book", ["a", "b", "c", "d"]) == "Book\nb\nc\nd"
    assert build_query("Book", []) == "Book"


def test_bm25_prefers_matching_terms():
    scores = BM25Ranker().score("search hotels paris", ["button Search hotels Paris",
                                                        "div footer links", ""])
    assert scores[0] > scores[1] == scores[2] == 0
    assert tokenize("Zip-Code 10203!") == ["zip", "code", "10203"]


def test_bm25_rank_of_the_real_positive(real_step):
    ranking = rank_step(real_step, BM25Ranker())
    assert len(ranking.ranks) == 468
    assert sorted(ranking.ranks.values()) == list(range(468))
    assert ranking.ranks["8635"] == BM25_RANK
    assert best_rank(real_step.positive_ids, ranking.ranks) == BM25_RANK


def test_bm25_finds_synthetic_targets(small_tasks):
    from webtraj.formats.mind2web import load_steps
    from webtraj.formats.mind2web.synthetic import write_raw_json

    del load_steps, write_raw_json
    from webtraj.formats.mind2web.raw_json import task_steps
    from webtraj.formats.mind2web.steps import IssueLog

    steps = [s for t in small_tasks for s in task_steps(t, issues=IssueLog(), file="x",
                                                        start=0)]
    best = [best_rank(s.positive_ids, rank_step(s, BM25Ranker()).ranks) for s in steps]
    report = recall_report(best)
    assert report.recall["50"] >= 0.9 and 0 < report.mrr <= 1
    assert report.n_steps == len(steps)


def test_recall_report():
    r = recall_report([0, 4, 9, 60, None])
    assert r.recall == {"1": 0.2, "5": 0.4, "10": 0.6, "20": 0.6, "50": 0.6}
    assert r.mrr == pytest.approx((1 + 1 / 5 + 1 / 10 + 1 / 61) / 5)
    assert r.n_no_positive == 1
    assert recall_report([]).n_steps == 0


def test_step_without_page_ranks_on_attributes(real_step):
    step = real_step.model_copy(update={"cleaned_html": None})
    texts = step_candidate_texts(step)
    assert texts["8635"] == "button Search submit"
    assert rank_step(step, BM25Ranker()).ranks["8635"] < 468


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    from webtraj.rank.neural import BiEncoderRanker

    return BiEncoderRanker()


def test_minilm_rank_of_the_real_positive(real_step, minilm):
    ranking = rank_step(real_step, minilm)
    rank = ranking.ranks["8635"]
    assert 0 <= rank < 468
    assert rank == MINILM_RANK
    s = minilm.score("search button", ["button Search submit", "footer copyright 2023"])
    assert s[0] > s[1]


def test_cross_encoder_by_path(real_step, tmp_path):
    pytest.importorskip("sentence_transformers")
    from webtraj.rank import make_ranker
    from webtraj.rank.neural import minilm_path

    with pytest.raises(FileNotFoundError):
        make_ranker("cross", str(tmp_path / "nope"))
    with pytest.raises(ValueError):
        make_ranker("cross")
    # Any local checkpoint loads as a CrossEncoder (here MiniLM with a fresh head).
    ranker = make_ranker("cross", minilm_path())
    scores = ranker.score("search", ["button Search", "div footer"])
    assert len(scores) == 2 and all(isinstance(x, float) for x in scores)
