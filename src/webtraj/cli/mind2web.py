"""`webtraj mind2web ...`: offline step-level evaluation on Mind2Web-format data.

`rank` orders candidates, `predict` picks the next action, `score` computes the reference
metrics, `run` does all three. Heavy imports stay inside the commands."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from webtraj.agents.mindact.settings import PredictSettings, RankSettings
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.cli.common import console, err_console, esc, fail
from webtraj.cli.model_options import llm_option, no_cache_option
from webtraj.cli.run_settings import setting
from webtraj.cli.train import export_sft
from webtraj.evaluate.mind2web.step_metrics import SCORE_DEFAULTS, ScoreSettings

app = typer.Typer(help="Mind2Web: rank, predict and score next actions offline.\n\n"
                  "Example: webtraj mind2web score --data data/test_task --predictions p.jsonl "
                  "--out metrics.json",
                  no_args_is_help=True)

DATA_HELP = "A Mind2Web file (.json, .jsonl, .parquet), a folder of them, or hub:SPLIT."


def _write_json(path: Path, obj: object) -> None:
    from webtraj.store.atomic import write_bytes_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, orjson.dumps(obj, option=orjson.OPT_INDENT_2))


def _report_issues(issues) -> None:  # noqa: ANN001 - IssueLog, imported lazily
    if not len(issues):
        return
    err_console.print(f"[yellow]{len(issues)} input problem(s), "
                      f"{issues.skipped_steps} step(s) skipped[/]", highlight=False)
    for issue in list(issues)[:10]:
        err_console.print(f"  {issue}", highlight=False, markup=False)
    if len(issues) > 10:
        err_console.print(f"  ... and {len(issues) - 10} more (see the output JSON)")


def _issue_summary(issues) -> dict:  # noqa: ANN001
    return {"count": len(issues), "skipped_steps": issues.skipped_steps,
            "duplicate_steps": issues.duplicates,
            "examples": [i.model_dump(exclude_none=True) for i in list(issues)[:50]]}


def _print_metrics(m) -> None:  # noqa: ANN001 - Mind2WebMetrics
    from rich.table import Table

    t = Table(title=f"Mind2Web ({m.n_tasks} tasks, {m.n_steps} steps, top-{m.top_k})")
    for col in ("", "element acc", "op F1", "step SR", "task SR", "steps"):
        t.add_column(col, justify="left" if not col else "right")
    pct = "{:.1%}".format
    t.add_row("macro", pct(m.element_acc), pct(m.op_f1), pct(m.step_sr), pct(m.task_sr),
              str(m.n_steps), style="bold")
    t.add_row("micro", pct(m.micro.element_acc), pct(m.micro.op_f1), pct(m.micro.step_sr),
              "", str(m.n_steps))
    for site, g in sorted(m.per_website.items()):
        t.add_row(esc(site) if site else "(no website)", pct(g.element_acc), pct(g.op_f1),
                  pct(g.step_sr), pct(g.task_sr), str(g.steps))
    console.print(t)
    if m.recall_cap:
        console.print(f"recall cap (ranking: {esc(m.ranking or 'unknown')}): " + ", ".join(
            f"@{k} {pct(v)}" for k, v in m.recall_cap.items()))
    if m.prediction_outcomes:
        console.print("predictions: " + outcome_counts(m.prediction_outcomes))


# How each prediction outcome is shown, in this order.
_OUTCOMES = {"predicted": "predicted", "none_of_the_above": "none of the above",
             "unparseable": "unparseable replies", "no_candidates": "without candidates",
             "bad_page": "unreadable pages", "error": "errors", "missing": "missing",
             "unknown": "without an outcome"}


def outcome_counts(counts: dict[str, int]) -> str:
    """`80 predicted, 30 none of the above, 10 unparseable replies` (always the first three)."""
    shown = [f"{counts.get(k, 0)} {label}" for k, label in _OUTCOMES.items()
             if counts.get(k) or k in ("predicted", "none_of_the_above", "unparseable")]
    return ", ".join(shown)


def _counts(preds) -> dict[str, int]:  # noqa: ANN001 - StepPrediction values
    from collections import Counter

    return dict(sorted(Counter(str(p.outcome) if p.outcome else "unknown"
                               for p in preds).items()))


def _ranking_name(ranks: Path | None, rankings: dict, ranked_steps: int, n_steps: int) -> str:
    """Which ranking a score read: a rankings file (and the rankers that wrote it), or the
    ranks carried by the data."""
    if ranks is not None:
        rankers = sorted({r.ranker for r in rankings.values() if r.ranker})
        return f"{ranks} ({', '.join(rankers) or 'ranker not recorded'})"
    if not ranked_steps:
        return "none: the data carries no ranks (every candidate counts as ranked 0)"
    return f"the ranks carried by the data ({ranked_steps} of {n_steps} steps ranked)"


def score_source(data: str, predictions: Path, *, ranks: Path | None = None,
                 top_k: int = SCORE_DEFAULTS.top_k,
                 drop_trailing_unranked: bool = SCORE_DEFAULTS.drop_trailing_unranked,
                 per_step: Path | None = None, limit: int | None = None):
    """Score a predictions file against data; returns (metrics, issues, scorer)."""
    from webtraj.evaluate.mind2web.step_metrics import Scorer
    from webtraj.formats.mind2web import IssueLog, iter_steps
    from webtraj.formats.mind2web.predictions import read_predictions
    from webtraj.rank.ranks_file import apply_ranking, read_rankings

    issues = IssueLog()
    preds = read_predictions(predictions, issues)
    rankings = read_rankings(ranks, issues) if ranks else {}
    scorer = Scorer(preds, top_k=top_k, drop_trailing_unranked=drop_trailing_unranked)
    ranked = n = 0
    for i, step in enumerate(iter_steps(data, issues=issues, keep_html=False)):
        if limit is not None and i >= limit:
            break
        if rankings:
            step = apply_ranking(step, rankings.get(step.key))
        n += 1
        ranked += any(c.rank is not None for c in step.candidates)
        scorer.add(step)
    if per_step is not None:
        per_step.parent.mkdir(parents=True, exist_ok=True)
        with per_step.open("wb") as f:
            for r in scorer.results:
                f.write(orjson.dumps(r.model_dump()) + b"\n")
    outcomes = _counts(preds.values()) if any(p.outcome for p in preds.values()) else {}
    metrics = scorer.metrics().model_copy(update={
        "ranking": _ranking_name(ranks, rankings, ranked, n), "prediction_outcomes": outcomes})
    return metrics, issues, scorer


@app.command()
def score(
    data: str = typer.Option(..., "--data", help=DATA_HELP),
    predictions: Path = typer.Option(..., "--predictions", exists=True, dir_okay=False,
                                     help="JSONL: annotation_id, action_uid, element, op, "
                                          "value (a missing line = no prediction)."),
    out: Path = typer.Option(Path("metrics.json"), "--out", help="Where to write metrics."),
    ranks: Path | None = typer.Option(None, "--ranks", exists=True, dir_okay=False,
                                      help="Rankings from `webtraj mind2web rank` "
                                           "(default: ranks carried by the data)."),
    top_k: int = setting("top_k", model=ScoreSettings),
    per_step: Path | None = typer.Option(None, "--per-step",
                                         help="Also write per-step results (JSONL)."),
    reference_trailing: bool = setting("drop_trailing_unranked", "--reference-trailing",
                                       model=ScoreSettings),
) -> None:
    """Score next-action predictions with the Mind2Web metrics (macro over tasks).

    Example: webtraj mind2web score --data data/test_task --predictions p.jsonl --out m.json
    """
    try:
        metrics, issues, scorer = score_source(
            data, predictions, ranks=ranks, top_k=top_k,
            drop_trailing_unranked=reference_trailing, per_step=per_step)
    except (FileNotFoundError, ImportError) as exc:
        raise fail(str(exc)) from None
    if metrics.n_steps == 0:
        _report_issues(issues)
        raise fail(f"no usable steps in {data}")
    doc = metrics.model_dump(mode="json")
    doc["unused_predictions"] = scorer.unused_predictions
    doc["issues"] = _issue_summary(issues)
    _write_json(out, doc)
    _print_metrics(metrics)
    _report_issues(issues)
    console.print(f"wrote {out}")


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err_console,
                    transient=True)


def rank_source(data: str, out: Path, *, ranker: str, model: str | None,
                limit: int | None = None):
    """Rank every step's candidates; writes rankings JSONL, returns (RecallReport, issues)."""
    from webtraj.formats.mind2web import IssueLog, iter_steps
    from webtraj.rank import best_rank, make_ranker, rank_step, recall_report
    from webtraj.rank.ranks_file import StepRanking

    issues = IssueLog()
    r = make_ranker(ranker, model)
    best: list[int | None] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    name = getattr(r, "name", ranker)
    with out.open("wb") as f, _progress() as progress:
        task = progress.add_task(f"ranking ({ranker})", total=None)
        for i, step in enumerate(iter_steps(data, issues=issues)):
            if limit is not None and i >= limit:
                break
            ranking: StepRanking = rank_step(step, r, issues)
            f.write(orjson.dumps(ranking.model_dump()) + b"\n")
            best.append(best_rank(step.positive_ids, ranking.ranks))
            progress.advance(task)
    report = recall_report(best).model_copy(update={"ranking": f"{name}, written to {out}"})
    return report, issues


@app.command()
def rank(
    data: str = typer.Option(..., "--data", help=DATA_HELP),
    out: Path = typer.Option(Path("ranks.jsonl"), "--out", help="Rankings JSONL to write."),
    ranker: str = setting("ranker", model=RankSettings),
    model: str | None = setting("model", model=RankSettings),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N steps."),
) -> None:
    """Rank each step's candidates (query = task + last 3 actions); print Recall@k and MRR.

    Example: webtraj mind2web rank --data data/test_task --ranker bm25 --out ranks.jsonl
    """
    try:
        report, issues = rank_source(data, out, ranker=ranker, model=model, limit=limit)
    except (FileNotFoundError, ImportError, ValueError) as exc:
        raise fail(str(exc)) from None
    console.print(f"{report.n_steps} steps; recall of this ranking ({esc(report.ranking)}): "
                  + ", ".join(f"R@{k} {v:.1%}" for k, v in report.recall.items())
                  + f", MRR {report.mrr:.3f}")
    _report_issues(issues)
    console.print(f"wrote {out}; `webtraj mind2web score --ranks {out}` scores with this "
                  "ranking (without --ranks, score reads the ranks the data carries)")


def predict_source(data: str, out: Path, *, method: str, llm: str | None, seed: int,
                   top_k: int, concurrency: int, ranks: Path | None,
                   limit: int | None = None, no_cache: bool = False,
                   screenshot_max_side: int | None = None):
    """Predict the next action of every step; writes predictions JSONL; returns issues.
    With `screenshot_max_side`, each prompt carries the step's screenshot (data without
    screenshots is refused at its first step)."""
    import asyncio
    import itertools

    from webtraj.agents.mindact import (
        DirectPredictor,
        MultiChoicePredictor,
        llm_ask,
        predict_all,
    )
    from webtraj.agents.mindact.screenshots import require_screenshot
    from webtraj.formats.mind2web import IssueLog, iter_steps
    from webtraj.llm import LLMClient
    from webtraj.rank import BM25Ranker, apply_ranking, rank_step, read_rankings

    issues = IssueLog()
    rankings = read_rankings(ranks, issues) if ranks else {}
    bm25 = BM25Ranker()

    def ranked_steps():
        for i, step in enumerate(iter_steps(data, issues=issues)):
            if limit is not None and i >= limit:
                return
            if screenshot_max_side is not None:
                require_screenshot(step)
            if rankings:
                step = apply_ranking(step, rankings.get(step.key))
            elif any(c.rank is None for c in step.candidates):
                step = apply_ranking(step, rank_step(step, bm25, issues))
            yield step

    client = LLMClient.from_cli(llm, no_cache=no_cache)
    ask = llm_ask(client)
    predictor = (MultiChoicePredictor(ask, seed=seed, top_k=top_k, issues=issues,
                                      screenshot_max_side=screenshot_max_side)
                 if method == "multichoice" else DirectPredictor(
                     ask, top_k=top_k, issues=issues, screenshot_max_side=screenshot_max_side))
    # Steps are predicted in chunks, so a split's pages never sit in memory all at once.
    chunk_size = max(16, concurrency * 4)
    preds = []

    async def go():
        with _progress() as progress, out.open("wb") as f:
            task = progress.add_task(f"predicting ({method})", total=None)
            chunk = []
            try:
                for step in itertools.chain(ranked_steps(), [None]):
                    if step is not None:
                        chunk.append(step)
                    if chunk and (step is None or len(chunk) >= chunk_size):
                        done = await predict_all(chunk, predictor, concurrency=concurrency,
                                                 on_done=lambda _p: progress.advance(task))
                        for p in done:
                            f.write(orjson.dumps(p.model_dump(exclude_none=True)) + b"\n")
                            preds.append(p.model_copy(update={"meta": None}))
                        chunk = []
            finally:
                await client.aclose()

    asyncio.run(go())
    return preds, issues


METHOD_HELP = "multichoice (MindAct tournament) or direct (generation baseline)."
SCREENSHOT_HELP = ("Send each step's screenshot (Multimodal-Mind2Web parquet) with every "
                   "prompt, downscaled to --image-max-side, as an image_url part.")
# The live llm agent's default: one downscale rule and one default size.
IMAGE_MAX_SIDE: int = PromptOptions.model_fields["image_max_side"].default
IMAGE_MAX_SIDE_HELP = "Longest side, in pixels, of the screenshot sent (downscaled to fit)."


@app.command()
def predict(
    data: str = typer.Option(..., "--data", help=DATA_HELP),
    out: Path = typer.Option(Path("predictions.jsonl"), "--out", help="Predictions JSONL."),
    method: str = typer.Option("multichoice", "--method", help=METHOD_HELP),
    llm: str | None = llm_option("the predictions"),
    ranks: Path | None = typer.Option(None, "--ranks", exists=True, dir_okay=False,
                                      help="Rankings JSONL (default: data ranks, else BM25)."),
    seed: int = setting("seed", model=PredictSettings),
    top_k: int = setting("top_k", model=PredictSettings),
    concurrency: int = setting("concurrency", model=PredictSettings),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N steps."),
    no_cache: bool = no_cache_option(),
    screenshot: bool = typer.Option(False, "--screenshot", help=SCREENSHOT_HELP),
    image_max_side: int = typer.Option(IMAGE_MAX_SIDE, "--image-max-side", min=64,
                                       help=IMAGE_MAX_SIDE_HELP),
) -> None:
    """Predict the next action of each step with an LLM (multiple choice or direct).

    Example: webtraj mind2web predict --data data/test_task --llm model=qwen --out preds.jsonl
    """
    if method not in ("multichoice", "direct"):
        raise fail(f"unknown --method {method!r}: {METHOD_HELP}")
    try:
        preds, issues = predict_source(data, out, method=method, llm=llm, seed=seed,
                                       top_k=top_k, concurrency=concurrency, ranks=ranks,
                                       limit=limit, no_cache=no_cache,
                                       screenshot_max_side=image_max_side if screenshot
                                       else None)
    except (FileNotFoundError, ImportError, ValueError) as exc:
        raise fail(str(exc)) from None
    console.print(f"{len(preds)} steps: {outcome_counts(_counts(preds))}; wrote {out}")
    _report_issues(issues)


@app.command()
def run(
    data: str = typer.Option(..., "--data", help=DATA_HELP),
    out_dir: Path = typer.Option(Path("mind2web-run"), "--out-dir",
                                 help="Folder for ranks, predictions and metrics."),
    ranker: str = setting("ranker", model=RankSettings),
    model: str | None = setting("model", model=RankSettings),
    method: str = typer.Option("multichoice", "--method", help=METHOD_HELP),
    llm: str | None = llm_option("the predictions"),
    seed: int = setting("seed", model=PredictSettings),
    top_k: int = setting("top_k", model=PredictSettings),
    concurrency: int = setting("concurrency", model=PredictSettings),
    limit: int | None = typer.Option(None, "--limit", min=1),
    screenshot: bool = typer.Option(False, "--screenshot", help=SCREENSHOT_HELP),
    image_max_side: int = typer.Option(IMAGE_MAX_SIDE, "--image-max-side", min=64,
                                       help=IMAGE_MAX_SIDE_HELP),
) -> None:
    """Rank, predict and score in one go; writes ranks.jsonl, predictions.jsonl, metrics.json.

    Example: webtraj mind2web run --data data/test_task --llm model=qwen --out-dir runs/m2w
    """
    if method not in ("multichoice", "direct"):
        raise fail(f"unknown --method {method!r}: {METHOD_HELP}")
    ranks_path = out_dir / "ranks.jsonl"
    preds_path = out_dir / "predictions.jsonl"
    metrics_path = out_dir / "metrics.json"
    try:
        report, _ = rank_source(data, ranks_path, ranker=ranker, model=model, limit=limit)
        predict_source(data, preds_path, method=method, llm=llm, seed=seed, top_k=top_k,
                       concurrency=concurrency, ranks=ranks_path, limit=limit,
                       screenshot_max_side=image_max_side if screenshot else None)
        metrics, issues, scorer = score_source(data, preds_path, ranks=ranks_path,
                                               top_k=top_k, limit=limit)
    except (FileNotFoundError, ImportError, ValueError) as exc:
        raise fail(str(exc)) from None
    doc = metrics.model_dump(mode="json")
    doc["ranker"] = {"name": ranker, **report.model_dump()}
    doc["issues"] = _issue_summary(issues)
    _write_json(metrics_path, doc)
    _print_metrics(metrics)
    _report_issues(issues)
    console.print(f"wrote {out_dir}")

app.command("export-sft")(export_sft)
