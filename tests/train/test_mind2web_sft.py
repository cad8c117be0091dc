"""Mind2Web export-sft: MindAct's multiple-choice questions (the prompt predict sends) with
the ground-truth answer; the same train command fine-tunes a predictor that
`webtraj mind2web predict` uses through serve-local."""

from __future__ import annotations

import orjson
import pytest

from webtraj.agents.mindact.answer import parse_choice
from webtraj.agents.mindact.prompt import SYSTEM_PROMPT
from webtraj.formats.mind2web import load_steps


@pytest.fixture(scope="module")
def m2w(tmp_path_factory):
    from webtraj.formats.mind2web.synthetic import synthetic_tasks, write_raw_json

    folder = tmp_path_factory.mktemp("m2w") / "train"
    write_raw_json(folder, list(synthetic_tasks(3, seed=3, mean_elements=60)), per_file=3)
    return folder


def test_export_sft_writes_multiple_choice_questions_with_the_target(m2w, tmp_path):
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    out = tmp_path / "sft"
    res = CliRunner().invoke(app, ["mind2web", "export-sft", "--data", str(m2w), "--out",
                                   str(out), "--top-k", "12", "--val-fraction", "0.34"])
    assert res.exit_code == 0, res.output
    stats = orjson.loads((out / "export_stats.json").read_bytes())
    steps = load_steps(m2w)
    assert stats["steps"] == len(steps) > 0 and stats["skipped_no_positive"] == 0
    assert stats["positive_groups"] == stats["steps"]
    assert stats["records"]["validation"] > 0 and stats["records"]["train"] > 0
    recs = [orjson.loads(x) for s in ("train", "validation")
            for x in (out / f"{s}.jsonl").read_bytes().splitlines()]
    assert len(recs) == stats["positive_groups"] + stats["none_groups"]
    for rec in recs:
        system, user, answer = rec["messages"]
        assert system == {"role": "system", "content": SYSTEM_PROMPT}
        choice = parse_choice(answer["content"])
        assert choice.readable
        task = user["content"].split("Task: ", 1)[1].split("\n", 1)[0]
        ops = {(s.operation.op, s.operation.value if s.operation.op != "CLICK" else "")
               for s in steps if s.confirmed_task == task}
        if choice.letter != "A":
            assert (choice.op, choice.value) in ops
            assert any(x.startswith(f"{choice.letter}. ") for x in user["content"].splitlines())
    assert "steps ->" in res.output



@pytest.mark.slow
def test_a_predictor_trained_on_the_export_serves_mind2web_predict(m2w, tmp_path):
    from train_support import TINY_LORA
    from webtraj.cli.mind2web import predict_source
    from webtraj.testing.tiny_model import build_tiny_model
    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.local_model import LocalModel
    from webtraj.train.mind2web_sft import SftExportSettings, export_sft
    from webtraj.train.serve import LocalServer
    from webtraj.train.sft import train

    data = tmp_path / "sft"
    export_sft(m2w, data, SftExportSettings(top_k=10, limit=4))
    texts = [m["content"] for x in (data / "train.jsonl").read_bytes().splitlines()
             for m in orjson.loads(x)["messages"]]
    base = build_tiny_model(texts, tmp_path / "base")
    result = train(TrainConfig(data=data, base=str(base), out=tmp_path / "out", epochs=1,
                               batch_size=4, per_device_batch=4, learning_rate=1e-2,
                               warmup_ratio=0, lora=LoraSettings(**TINY_LORA)))
    with LocalServer(LocalModel(str(base), result.adapter), name="m2w") as srv:
        preds, issues = predict_source(
            str(m2w), tmp_path / "preds.jsonl", method="multichoice", seed=0, top_k=10,
            concurrency=2, ranks=None, limit=2, no_cache=True,
            llm=f"base_url={srv.base_url},model=m2w,max_tokens=16")
    assert len(preds) == 2
    lines = (tmp_path / "preds.jsonl").read_bytes().splitlines()
    assert len(lines) == 2
    # Every step got an answer through the served model, whatever the tiny model chose.
    assert sorted((p.annotation_id, p.action_uid) for p in preds) == sorted(
        (s.annotation_id, s.action_uid) for s in load_steps(m2w)[:2])
