"""webtraj train on a tiny vision-language model (a LLaVA built from a config in
webtraj.testing): records in TRL's vision form train it, the loss falls, LoRA sits on the
language model's attention only (the vision tower frozen unless asked), the adapter and its
processor reload with the trained logits, and train_result.json says it trained a vision
model."""

from __future__ import annotations

import orjson
import pytest
import torch

from train_support import vision_probe


def test_a_vision_student_trains_on_image_records(vision_trained):
    cfg, result, seen = vision_trained
    assert result.kind == "vision" and result.vision_tower is False
    assert result.final_loss < result.first_loss
    assert result.losses[-1].validation_loss < result.losses[0].validation_loss
    assert result.batching.mode == "tokens" and result.batching.layout == "padded"
    on_disk = orjson.loads((cfg.out / "train_result.json").read_bytes())
    assert on_disk["kind"] == "vision"
    # LoRA on the language model's q/v projections only; the vision tower has none.
    lora = [n for n in seen["names"] if n.endswith(".lora_A")]
    assert lora and all(".language_model." in n for n in lora)
    assert {n.rsplit(".", 2)[-2] for n in lora} == {"q_proj", "v_proj"}
    # The image tokens count in the lengths: 64 per image on top of the text.
    from webtraj.train.data import read_split
    from webtraj.train.sft import load_tokenizer

    tok = load_tokenizer(str(cfg.base))
    ex = read_split(cfg.data / "train.jsonl")[0]
    text = tok.apply_chat_template(ex.prompt + ex.completion, tokenize=True)["input_ids"]
    assert result.lengths[0].longest >= len(text) + 63


def test_the_vision_adapter_reloads_with_the_processor_and_the_trained_logits(
        vision_trained, vlm_base):
    from peft import PeftModel

    from webtraj.train import vision

    cfg, result, seen = vision_trained
    processor = vision.load_processor(str(result.adapter))
    x = vision_probe(processor, cfg.data)
    base = vision.load_model(str(vlm_base)).eval()
    with torch.no_grad():
        base_logits = base(**x).logits
        reloaded = PeftModel.from_pretrained(base, str(result.adapter)).eval()
        logits = reloaded(**x).logits
    assert not torch.allclose(base_logits, seen["logits"], atol=1e-3)
    assert torch.equal(logits, seen["logits"])


def test_vision_records_need_a_vision_base(vision_data, base_model, tmp_path):
    from webtraj.model.errors import InputError
    from webtraj.train.config import TrainConfig
    from webtraj.train.sft import train

    cfg = TrainConfig(data=vision_data, base=str(base_model), out=tmp_path / "out")
    with pytest.raises(InputError, match="vision form") as err:
        train(cfg)
    assert err.value.record == 1 and err.value.field == "messages"


def test_vision_tower_gets_lora_only_when_asked(vlm_base, vision_data, tmp_path):
    from typer.testing import CliRunner

    from webtraj.cli.app import app
    from webtraj.train import vision

    model = vision.load_model(str(vlm_base))
    frozen = vision.lora_targets(model, ("q_proj", "v_proj"), vision=False)
    both = vision.lora_targets(model, ("q_proj", "v_proj"), vision=True)
    assert all(".language_model." in n for n in frozen) and len(frozen) == 4
    assert {n for n in both if ".vision_tower." in n} == {
        "model.vision_tower.encoder.layers.0.self_attn.q_proj",
        "model.vision_tower.encoder.layers.0.self_attn.v_proj"}
    linear = vision.lora_targets(model, ("all-linear",), vision=False)
    assert "lm_head" not in linear and not any("projector" in n for n in linear)
    # The CLI option reaches the result.
    res = CliRunner().invoke(app, [
        "train", "--data", str(vision_data), "--base", str(vlm_base), "--out",
        str(tmp_path / "out"), "--epochs", "0.25", "--batch-size", "4", "--vision-tower"])
    assert res.exit_code == 0, res.output
    on_disk = orjson.loads((tmp_path / "out" / "train_result.json").read_bytes())
    assert on_disk["kind"] == "vision" and on_disk["vision_tower"] is True
    assert "LoRA on the language model and the vision tower" in res.output
