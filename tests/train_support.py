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


COLORS = ((220, 30, 30), (30, 30, 220), (30, 180, 30))


def vision_records(text_data: Path, out: Path) -> Path:
    """The curated text records in TRL's vision form: every content a list of parts, the
    step's user turn with an image part (a coloured page, one file per colour)."""
    import io

    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    (out / "images").mkdir(exist_ok=True)
    for i, rgb in enumerate(COLORS):
        buf = io.BytesIO()
        Image.new("RGB", (96, 54), rgb).save(buf, format="PNG")
        (out / "images" / f"{i}.png").write_bytes(buf.getvalue())
    for split in ("train", "validation"):
        lines = []
        for n, line in enumerate((text_data / f"{split}.jsonl").read_bytes().splitlines()):
            msgs = orjson.loads(line)["messages"]
            parts = [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
                     for m in msgs]
            parts[-2]["content"].append({"type": "image"})
            lines.append(orjson.dumps({"messages": parts,
                                       "images": [f"images/{n % len(COLORS)}.png"]}))
        (out / f"{split}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return out


def tiny_vlm(data: Path, out: Path) -> Path:
    from webtraj.testing.tiny_model import build_tiny_vlm, chat_texts

    return build_tiny_vlm(chat_texts(records(data)), out)


def vision_probe(processor, data: Path):
    """The first training record with its image, processed as the model gets it."""
    from webtraj.train.data import open_image, read_split, with_images

    ex = read_split(data / "train.jsonl")[0]
    msgs = with_images(ex.prompt + ex.completion, [open_image(p) for p in ex.images])
    return processor.apply_chat_template(msgs, tokenize=True, return_dict=True,
                                         return_tensors="pt")


def recorded_replies(data: Path):
    """A scripted endpoint's reply function that answers each task's steps, in order, with
    the curated records' answers of that task (by the intent on the user turn's first line),
    then "no more steps"."""
    from webtraj.train.data import read_split

    answers: dict[str, list[str]] = {}
    for split in ("train.jsonl", "validation.jsonl"):
        for ex in read_split(data / split):
            answers.setdefault(ex.prompt[-1]["content"].split("\n", 1)[0], []).append(
                ex.completion[0]["content"])
    asked: dict[str, int] = {}

    def reply(req) -> str:
        intent = req.last_user.split("\n", 1)[0]
        n = asked[intent] = asked.get(intent, 0) + 1
        return answers[intent][n - 1] if n <= len(answers[intent]) else "no more steps"

    return reply, max(map(len, answers.values()))
