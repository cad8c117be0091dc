"""`webtraj mind2web score|rank|predict|run` end to end on local files."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from mind2web.conftest import REAL_AID, REAL_UID
from mind2web.test_predict import oracle_reply
from webtraj.cli.app import app
from webtraj.testing import ScriptedLLMServer

runner = CliRunner()
KEYS = {"element_acc", "op_f1", "step_sr", "task_sr", "micro", "per_website", "error_ratio",
        "n_tasks", "n_steps"}


def _jsonl(path, rows):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


def test_score_real_step(real_step_path, tmp_path):
    preds = _jsonl(tmp_path / "p.jsonl", [{"annotation_id": REAL_AID, "action_uid": REAL_UID,
                                           "element": 8635, "op": "CLICK", "value": ""}])
    out = tmp_path / "metrics.json"
    r = runner.invoke(app, ["mind2web", "score", "--data", str(real_step_path),
                            "--predictions", str(preds), "--out", str(out)])
    assert r.exit_code == 0, r.output
    m = orjson.loads(out.read_bytes())
    assert set(m) >= KEYS
    assert m["element_acc"] == m["op_f1"] == m["step_sr"] == m["task_sr"] == 1.0
    assert set(m["micro"]) == {"element_acc", "op_f1", "step_sr"}
    assert m["per_website"]["thumbtack"]["steps"] == 1
    assert {"element_acc", "op_f1", "step_sr", "task_sr", "steps"} <= set(
        m["per_website"]["thumbtack"])
    assert m["n_tasks"] == 1 and m["n_steps"] == 1 and m["error_ratio"]["0"] == 1.0
    assert "thumbtack" in r.output and "macro" in r.output


def test_score_counts_bad_prediction_lines_and_missing_steps(raw_dir, tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"annotation_id": "task-00000", "action_uid": "a00000-00", '
                     '"element": null}\nnot json\n')
    out = tmp_path / "m.json"
    r = runner.invoke(app, ["mind2web", "score", "--data", str(raw_dir), "--predictions",
                            str(preds), "--out", str(out), "--per-step", str(tmp_path / "s.jsonl")])
    assert r.exit_code == 0, r.output
    m = orjson.loads(out.read_bytes())
    assert m["step_sr"] == 0.0 and m["n_predicted"] == 0 and m["issues"]["count"] == 1
    assert len((tmp_path / "s.jsonl").read_bytes().splitlines()) == m["n_steps"]


def test_rank_then_score_with_ranks(raw_dir, tmp_path):
    ranks = tmp_path / "ranks.jsonl"
    r = runner.invoke(app, ["mind2web", "rank", "--data", str(raw_dir), "--out", str(ranks)])
    assert r.exit_code == 0, r.output
    assert "R@50" in r.output and "MRR" in r.output
    first = orjson.loads(ranks.read_bytes().splitlines()[0])
    assert first["ranker"] == "bm25" and first["ranks"]


def test_run_end_to_end_with_scripted_llm(raw_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    with ScriptedLLMServer(default=lambda req: oracle_reply(req.last_user)) as srv:
        r = runner.invoke(app, ["mind2web", "run", "--data", str(raw_dir), "--out-dir",
                                str(tmp_path / "out"), "--llm",
                                f"base_url={srv.base_url},model=scripted", "--limit", "6"])
        assert r.exit_code == 0, r.output
        assert srv.request_count > 0
    m = orjson.loads((tmp_path / "out" / "metrics.json").read_bytes())
    assert m["n_steps"] == 6 and m["ranker"]["name"] == "bm25"
    assert m["micro"]["element_acc"] == pytest.approx(m["recall_cap"]["50"])
    assert (tmp_path / "out" / "predictions.jsonl").exists()


@pytest.mark.parametrize("cmd", ["score", "rank", "predict", "run"])
def test_help_has_an_example(cmd):
    r = runner.invoke(app, ["mind2web", cmd, "--help"])
    assert r.exit_code == 0 and "Example: webtraj mind2web" in r.output


def test_predict_streams_in_chunks(raw_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    out = tmp_path / "p.jsonl"
    with ScriptedLLMServer(default=lambda req: oracle_reply(req.last_user)) as srv:
        r = runner.invoke(app, ["mind2web", "predict", "--data", str(raw_dir), "--out",
                                str(out), "--llm", f"base_url={srv.base_url},model=scripted",
                                "--concurrency", "1", "--method", "direct"])
        assert r.exit_code == 0, r.output
    lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert len(lines) > 16  # more than one chunk
    assert len({(x["annotation_id"], x["action_uid"]) for x in lines}) == len(lines)


def _mixed_reply(req) -> str:
    """A model that answers some steps, rejects the candidates of others and writes
    something unreadable for the rest (by the step's task text, so the split is stable)."""
    prompt = req.last_user
    bucket = sum(map(ord, prompt.split("Task:", 1)[-1][:40])) % 3
    if bucket == 0:
        return oracle_reply(prompt)
    if bucket == 1:
        return "Answer: A."
    return "I think the search button, probably."


def test_predict_counts_unparseable_replies_apart_from_none_of_the_above(raw_dir, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    out = tmp_path / "p.jsonl"
    with ScriptedLLMServer(default=_mixed_reply) as srv:
        r = runner.invoke(app, ["mind2web", "predict", "--data", str(raw_dir), "--out",
                                str(out), "--llm", f"base_url={srv.base_url},model=scripted",
                                "--limit", "12"], env={"COLUMNS": "300"})
    assert r.exit_code == 0, r.output
    lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    by = {}
    for x in lines:
        by.setdefault(x["outcome"], []).append(x)
    assert set(by) >= {"unparseable", "none_of_the_above"}, {k: len(v) for k, v in by.items()}
    for x in by["unparseable"]:
        assert x.get("element") is None and "no answer letter" in x["meta"]["reason"]
        assert x["meta"]["reply"] == "I think the search button, probably."
    for x in by["none_of_the_above"]:
        assert x.get("element") is None and x["meta"]["reason"] == "every candidate was rejected"
    out_text = " ".join(r.output.split())
    assert (f"{len(by['unparseable'])} unparseable replies" in out_text
            and f"{len(by['none_of_the_above'])} none of the above" in out_text), out_text

    metrics = tmp_path / "m.json"
    r = runner.invoke(app, ["mind2web", "score", "--data", str(raw_dir), "--predictions",
                            str(out), "--out", str(metrics)], env={"COLUMNS": "300"})
    assert r.exit_code == 0, r.output
    m = orjson.loads(metrics.read_bytes())
    assert m["prediction_outcomes"]["unparseable"] == len(by["unparseable"])
    assert f"{len(by['unparseable'])} unparseable replies" in " ".join(r.output.split())


def test_every_recall_figure_names_its_ranking(raw_dir, tmp_path):
    ranks = tmp_path / "ranks.jsonl"
    r = runner.invoke(app, ["mind2web", "rank", "--data", str(raw_dir), "--out", str(ranks)],
                      env={"COLUMNS": "300"})
    assert r.exit_code == 0, r.output
    assert f"recall of this ranking (bm25, written to {ranks})" in " ".join(r.output.split())

    preds = _jsonl(tmp_path / "p.jsonl", [])
    for extra, named in (([], "the ranks carried by the data"),
                         (["--ranks", str(ranks)], f"{ranks} (bm25)")):
        out = tmp_path / "m.json"
        r = runner.invoke(app, ["mind2web", "score", "--data", str(raw_dir), "--predictions",
                                str(preds), "--out", str(out), *extra], env={"COLUMNS": "300"})
        assert r.exit_code == 0, r.output
        m = orjson.loads(out.read_bytes())
        assert m["ranking"].startswith(named), m["ranking"]
        assert f"recall cap (ranking: {named}" in " ".join(r.output.split())
