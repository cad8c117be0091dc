"""webtraj train on a tiny model: the loss falls, validation loss per epoch, the adapter and
the merged weights reload with the trained model's logits, training resumes, bad input is
reported by file, record and field."""

from __future__ import annotations

import orjson
import pytest
import torch

from train_support import probe_ids


def test_loss_falls_and_each_epoch_has_a_validation_loss(trained):
    cfg, result, _, steps = trained
    assert result.final_loss < result.first_loss
    assert [e.epoch for e in result.losses] == [1.0, 2.0]
    assert all(e.validation_loss is not None and e.train_loss is not None
               for e in result.losses)
    assert result.losses[-1].validation_loss < result.losses[0].validation_loss
    assert result.train_records == 7 and result.validation_records == 11
    assert steps[-1] == (result.steps, result.steps) and result.steps == 4
    on_disk = orjson.loads((cfg.out / "train_result.json").read_bytes())
    assert on_disk["final_loss"] == result.final_loss
    assert {r["split"]: r["cut"] for r in on_disk["lengths"]} == {"train": 0, "validation": 0}


def test_adapter_and_merged_weights_reload_with_the_trained_logits(trained, base_model,
                                                                  split_data):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    cfg, result, logits, _ = trained
    tok = AutoTokenizer.from_pretrained(result.adapter)
    x = probe_ids(tok, split_data)
    base = AutoModelForCausalLM.from_pretrained(base_model).eval()
    with torch.no_grad():
        base_logits = base(input_ids=x).logits
        reloaded = PeftModel.from_pretrained(base, str(result.adapter)).eval()
        adapter_logits = reloaded(input_ids=x).logits
        merged = AutoModelForCausalLM.from_pretrained(result.merged).eval()
        merged_logits = merged(input_ids=x).logits
    assert not torch.allclose(base_logits, logits, atol=1e-3)  # training changed the model
    assert torch.equal(adapter_logits, logits)
    assert torch.allclose(merged_logits, logits, atol=1e-4)
    assert not any("lora" in n for n, _ in merged.named_parameters())


def test_cli_resumes_from_the_last_checkpoint_and_prints_the_loss_summary(trained):
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    cfg, first, _, _ = trained
    args = ["train", "--data", str(cfg.data), "--base", cfg.base, "--out", str(cfg.out),
            "--epochs", "3", "--batch-size", "4", "--per-device-batch", "4", "--lr", "1e-2",
            "--warmup", "0", "--lora-dropout", "0", "--targets", "all-linear",
            "--modules-to-save", "lm_head"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    again = orjson.loads((cfg.out / "train_result.json").read_bytes())
    assert again["resumed_from"].endswith("checkpoint-4") and again["steps"] == 6
    # The speed counts this session's tokens only: one epoch of the two trained before.
    assert again["trained_tokens"] * 2 == first.trained_tokens
    assert [e["epoch"] for e in again["losses"]] == [3.0]
    assert "Loss per epoch" in res.output and "resumed from" in res.output
    assert "train: 7 records" in res.output


def test_cli_reports_bad_input_without_a_traceback(tmp_path, base_model):
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    (tmp_path / "train.jsonl").write_text('{"messages": [{"role": "user"}]}\n')
    res = CliRunner().invoke(app, ["train", "--data", str(tmp_path), "--base",
                                   str(base_model), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "train.jsonl: record 1: field 'messages'" in " ".join(res.output.split())
    assert "Traceback" not in res.output
    res = CliRunner().invoke(app, ["train", "--data", str(tmp_path / "none"), "--base",
                                   str(base_model), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "no train.jsonl" in " ".join(res.output.split())


def test_records_longer_than_max_length_are_left_out_and_reported(split_data, base_model,
                                                                 tmp_path):
    from webtraj.train.data import cut_long, read_split
    from webtraj.train.sft import load_tokenizer

    tok = load_tokenizer(str(base_model))
    examples = read_split(split_data / "validation.jsonl")
    _, lengths, full = cut_long(tok, "validation", examples, 100_000)
    limit = sorted(lengths)[5]
    kept, _, report = cut_long(tok, "validation", examples, limit)
    assert report.cut == sum(n > limit for n in lengths) > 0
    assert len(kept) == report.kept == len(examples) - report.cut
    assert report.longest == full.longest and len(report.examples) == report.cut
    assert all(isinstance(n, int) and n >= 1 for n in report.examples)


def test_bad_records_name_the_file_the_line_and_the_field(tmp_path):
    from webtraj.model.errors import InputError
    from webtraj.train.data import read_split

    good = {"messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "ok"}]}
    bad = {"messages": [{"role": "user", "content": "hi"}, {"role": "robot", "content": 1}]}
    path = tmp_path / "train.jsonl"
    path.write_bytes(orjson.dumps(good) + b"\n" + orjson.dumps(bad) + b"\n")
    with pytest.raises(InputError) as err:
        read_split(path)
    assert err.value.record == 2 and err.value.field == "messages[1].role"
    assert str(path) in str(err.value)
    path.write_bytes(orjson.dumps(good) + b"\n{not json\n")
    with pytest.raises(InputError, match="record 2: invalid JSON"):
        read_split(path)


def test_training_prompt_is_the_llm_agents_acting_prompt(replay_dir, split_data):
    """Each record's prompt, as train reads it, is the message list the llm agent (default
    options) sends at that step when it took the same actions (by id) before."""
    from webtraj.agents.llm_agent import LLMAgent
    from webtraj.curate.chat_records import history_by_id
    from webtraj.store import RunStore
    from webtraj.train.data import read_split

    with RunStore.open(replay_dir) as store:
        trajs = {t.task.task_id: t for t in store.iter_trajectories()}
    traj = trajs["booking.cars.01"]
    examples = read_split(split_data / "train.jsonl")
    assert len(examples) == len(traj.steps) == 7
    agent = LLMAgent(client=None)
    for t, ex in enumerate(examples):
        sent = agent.messages(traj.task, traj.steps[t].observation,
                              history_by_id(list(traj.steps[:t])))
        assert [{"role": m.role, "content": m.content} for m in sent] == ex.prompt
        assert ex.completion[0]["role"] == "assistant"


def test_training_takes_records_as_they_are(split_data, tmp_path):
    """train/data adds nothing: the prompt is every message but the last, the completion the
    last, for curated records and for a record with the agent's system prompt and no worked
    example (which an agent run with few_shot=false sends)."""
    from webtraj.agents.prompting import SYSTEM_PROMPT
    from webtraj.train.data import read_split

    for split in ("train", "validation"):
        path = split_data / f"{split}.jsonl"
        lines = [orjson.loads(x)["messages"] for x in path.read_bytes().splitlines()]
        examples = read_split(path)
        assert len(examples) == len(lines) > 0
        for ex, msgs in zip(examples, lines, strict=True):
            assert ex.prompt == msgs[:-1] and ex.completion == msgs[-1:]
    bare = [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "TASK: t"},
            {"role": "assistant", "content": "a"}]
    path = tmp_path / "train.jsonl"
    path.write_bytes(orjson.dumps({"messages": bare}) + b"\n")
    [ex] = read_split(path)
    assert ex.prompt == bare[:2] and ex.completion == bare[2:]
