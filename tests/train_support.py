"""A small real pipeline for the training tests and the benchmark: the replay agent on two
sandbox tasks in Chromium, curated by the oracle judge, and a tiny model whose tokenizer is
trained on the records (no downloaded weights)."""

from __future__ import annotations

from pathlib import Path

import orjson

from factories import SANDBOX_TODAY

TASKS = ("booking.hotels.01", "booking.cars.01")

# Tiny-model settings: a random model learns through a trainable output head and LoRA on
# every linear layer, at a high learning rate (a real base model keeps the constraint-based
# evaluation paper's defaults).
TINY_LORA = {"r": 16, "alpha": 32, "dropout": 0.0, "targets": ("all-linear",),
             "modules_to_save": ("lm_head",)}


def replay_run(out: Path, tasks=TASKS) -> Path:
    from webtraj.execute.run import RunConfig, execute_run

    config = RunConfig(suite="booking", agent="replay", today=SANDBOX_TODAY, task_ids=tasks,
                       max_steps=15)
    with execute_run(config, out):
        pass
    return out


def curate(run: Path, out: Path, val_fraction: float) -> Path:
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run

    curate_run(CurateRun(run=run, out=out, settings=CurateSettings(judge="oracle"),
                         val_fraction=val_fraction))
    return out


def records(data: Path) -> list[dict]:
    out = []
    for split in ("train.jsonl", "validation.jsonl"):
        path = data / split
        if path.exists():
            out += [orjson.loads(line) for line in path.read_bytes().splitlines()]
    return out


def tiny_base(data: Path, out: Path) -> Path:
    from webtraj.testing.tiny_model import build_tiny_model, chat_texts

    return build_tiny_model(chat_texts(records(data)), out)




def probe_ids(tok, data: Path):
    """The first training record, tokenized, as a batch of one."""
    import torch

    rec = orjson.loads((data / "train.jsonl").read_bytes().splitlines()[0])
    return torch.tensor([tok.apply_chat_template(rec["messages"], tokenize=True)["input_ids"]])
