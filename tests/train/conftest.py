"""Session fixtures of the training tests (see train_support)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from train_support import (
    TINY_LORA,
    curate,
    probe_ids,
    replay_run,
    tiny_base,
    tiny_vlm,
    vision_probe,
    vision_records,
)


@pytest.fixture(autouse=True)
def _isolated_llm_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "llm-cache.sqlite"))


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory) -> Path:
    return replay_run(tmp_path_factory.mktemp("replay") / "run")


@pytest.fixture(scope="session")
def split_data(replay_dir, tmp_path_factory) -> Path:
    """One task for training, the other for validation."""
    return curate(replay_dir, tmp_path_factory.mktemp("data") / "split", 0.5)


@pytest.fixture(scope="session")
def base_model(split_data, tmp_path_factory) -> Path:
    return tiny_base(split_data, tmp_path_factory.mktemp("tiny") / "base")


@pytest.fixture(scope="session")
def trained(split_data, base_model, tmp_path_factory):
    """Two epochs of 2 steps; the trained model's logits on a probe, taken in memory."""
    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.sft import train

    out = tmp_path_factory.mktemp("student") / "out"
    cfg = TrainConfig(data=split_data, base=str(base_model), out=out, epochs=2,
                      batch_size=4, per_device_batch=4, learning_rate=1e-2, warmup_ratio=0,
                      lora=LoraSettings(**TINY_LORA), merge=True)
    seen = {}
    steps = []

    def keep(model, tok):
        model.eval()
        with torch.no_grad():
            seen["logits"] = model(input_ids=probe_ids(tok, split_data)).logits.clone()

    result = train(cfg, on_model=keep, progress=lambda d, t, loss: steps.append((d, t)))
    return cfg, result, seen["logits"], steps


@pytest.fixture(scope="session")
def vision_data(split_data, tmp_path_factory) -> Path:
    return vision_records(split_data, tmp_path_factory.mktemp("vdata") / "data")


@pytest.fixture(scope="session")
def vlm_base(split_data, tmp_path_factory) -> Path:
    return tiny_vlm(split_data, tmp_path_factory.mktemp("vlm") / "base")


@pytest.fixture(scope="session")
def vision_trained(vision_data, vlm_base, tmp_path_factory):
    """Three epochs of the tiny vision-language model on image records; the trained model's
    logits on a probe (with its image) and its module names, taken in memory."""
    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.sft import train

    out = tmp_path_factory.mktemp("vstudent") / "out"
    cfg = TrainConfig(data=vision_data, base=str(vlm_base), out=out, epochs=3, batch_size=4,
                      learning_rate=1e-2, warmup_ratio=0,
                      lora=LoraSettings(r=16, alpha=32, dropout=0.0,
                                        modules_to_save=("lm_head",)))
    seen = {}

    def keep(model, processor):
        model.eval()
        with torch.no_grad():
            seen["logits"] = model(**vision_probe(processor, vision_data)).logits.clone()
            seen["names"] = [n for n, _ in model.named_modules()]

    return cfg, train(cfg, on_model=keep), seen
