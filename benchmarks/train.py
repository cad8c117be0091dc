"""Benchmark: training tokens per second of `webtraj train` (TRL SFTTrainer + PEFT LoRA)
against a bare PyTorch loop on the same tiny model, the same LoRA, the same records, the same
records per optimizer step and the same optimizer settings; and the peak memory of each.
`webtraj train` runs with its default batching (token budget, 8192 tokens on CPU: here each
6-record step is one length-grouped micro-batch); the bare loop pads batches of 6 in file
order.

Data: the replay agent on 2 sandbox tasks in Chromium, curated by the oracle judge (the
records `webtraj curate` writes); model: `webtraj.testing.tiny_model` (a 2-layer Llama whose
tokenizer is trained on the records). Each mode runs in a fresh child process, so its peak
RSS (ru_maxrss) is its own. Timed: the training loop only (tokenization and model loading
excluded in both; so is webtraj's LM-head measurement when training starts). Tokens: prompt +
answer tokens of every record, per epoch. The two run interleaved (--repeats pairs, bare
first); the figures are medians, with the CPU seconds of the timed loop beside the wall time
(on a shared machine the wall time moves with the load, which is printed before and after).
Target: ratio >= 0.8.

    .venv/bin/python benchmarks/train.py [--epochs 3] [--batch 6] [--repeats 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASKS = ("booking.hotels.01", "booking.cars.01")
TODAY = "2026-01-15"
LR = 1e-2
LORA = {"r": 16, "alpha": 32, "dropout": 0.0, "targets": ("all-linear",),
        "modules_to_save": ("lm_head",)}


def replay_records(work: Path, out: Path) -> Path:
    """Curated records of the replay agent on TASKS (run and curated once, kept in `work`);
    the GPU benchmark (train_gpu.py) starts from the same records."""
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run
    from webtraj.execute.run import RunConfig, execute_run

    if not (out / "train.jsonl").exists():
        config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=TASKS,
                           max_steps=15)
        with execute_run(config, work / "run"):
            pass
        curate_run(CurateRun(run=work / "run", out=out,
                             settings=CurateSettings(judge="oracle"), val_fraction=0.0))
    return out / "train.jsonl"


def prepare(work: Path) -> tuple[Path, Path]:
    import orjson

    from webtraj.testing.tiny_model import build_tiny_model, chat_texts

    data, base = work / "data", work / "base"
    records = replay_records(work, data)
    if not (base / "config.json").exists():
        recs = [orjson.loads(x) for x in records.read_bytes().splitlines()]
        build_tiny_model(chat_texts(recs), base)
    return data, base


def run_trainer(data: Path, base: Path, out: Path, epochs: float, batch: int) -> dict:
    from transformers import TrainerCallback

    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.sft import train

    class CpuTime(TrainerCallback):
        """CPU seconds of the training loop (what runtime_s times)."""

        def on_train_begin(self, args, state, control, **kw):  # noqa: ANN001
            self.start = time.process_time()

        def on_train_end(self, args, state, control, **kw):  # noqa: ANN001
            self.seconds = time.process_time() - self.start

    cpu = CpuTime()
    cfg = TrainConfig(data=data, base=str(base), out=out, epochs=epochs, batch_size=batch,
                      learning_rate=LR, warmup_ratio=0,
                      lora=LoraSettings(**LORA), resume=False, save_total_limit=1)
    r = train(cfg, callbacks=[cpu])
    return {"tokens": r.trained_tokens, "seconds": r.runtime_s, "cpu_seconds": cpu.seconds,
            "loss": r.final_loss, "lm_head": r.lm_head.model_dump()}


def run_bare(data: Path, base: Path, epochs: float, batch: int) -> dict:
    """The same work written by hand: tokenize, pad per batch, mask the prompt, AdamW with a
    cosine schedule, LoRA from PEFT; no Trainer, no checkpoints, no logging."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

    from webtraj.train.data import read_split

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(base)
    examples = read_split(data / "train.jsonl")
    seqs = []
    for ex in examples:
        prompt = tok.apply_chat_template(ex.prompt, add_generation_prompt=True,
                                         tokenize=True)["input_ids"]
        full = tok.apply_chat_template(ex.prompt + ex.completion, tokenize=True)["input_ids"]
        seqs.append((full, len(prompt)))
    model = AutoModelForCausalLM.from_pretrained(base)
    model = get_peft_model(model, LoraConfig(
        r=LORA["r"], lora_alpha=LORA["alpha"], lora_dropout=LORA["dropout"],
        target_modules="all-linear", modules_to_save=list(LORA["modules_to_save"]),
        task_type="CAUSAL_LM"))
    model.train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR,
                            weight_decay=0.0)
    n_epochs = int(epochs)
    steps_per_epoch = (len(seqs) + batch - 1) // batch
    sched = get_cosine_schedule_with_warmup(opt, 0, steps_per_epoch * n_epochs)
    pad = tok.pad_token_id
    batches = []
    for i in range(0, len(seqs), batch):
        chunk = seqs[i:i + batch]
        width = max(len(s) for s, _ in chunk)
        ids = torch.full((len(chunk), width), pad)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        labels = torch.full((len(chunk), width), -100)
        for row, (s, plen) in enumerate(chunk):
            ids[row, :len(s)] = torch.tensor(s)
            mask[row, :len(s)] = 1
            labels[row, plen:len(s)] = torch.tensor(s[plen:])
        batches.append((ids, mask, labels))
    t0, c0 = time.perf_counter(), time.process_time()
    loss = None
    for _ in range(n_epochs):
        for ids, mask, labels in batches:
            out = model(input_ids=ids, attention_mask=mask, labels=labels)
            out.loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            loss = out.loss.item()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    tokens = sum(len(s) for s, _ in seqs) * n_epochs
    return {"tokens": tokens, "seconds": seconds, "cpu_seconds": cpu, "loss": loss}


def child(mode: str, work: Path, epochs: float, batch: int) -> dict:
    data, base = work / "data", work / "base"
    if mode == "trainer":
        res = run_trainer(data, base, work / f"out-{time.time_ns()}", epochs, batch)
    else:
        res = run_bare(data, base, epochs, batch)
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return res


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--batch", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=3, help="Interleaved pairs of runs.")
    ap.add_argument("--keep", type=Path, default=None)
    ap.add_argument("--child", choices=("trainer", "bare"), default=None)
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="webtraj-bench-train-"))
    if args.child:
        print(json.dumps(child(args.child, work, args.epochs, args.batch)))
        return
    work.mkdir(parents=True, exist_ok=True)
    prepare(work)
    results: dict[str, list[dict]] = {"bare": [], "trainer": []}
    load_before = load()
    for _ in range(args.repeats):
        for mode in ("bare", "trainer"):  # interleaved: both see the same load
            proc = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--keep", str(work), "--epochs",
                 str(args.epochs), "--batch", str(args.batch)],
                capture_output=True, text=True, check=True)
            results[mode].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    load_after = load()

    def median(mode: str, key: str) -> float:
        return statistics.median(r["tokens"] / r[key] for r in results[mode])

    trainer = results["trainer"][0]
    print(f"train benchmark ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC), "
          f"{args.epochs:g} epochs, batch {args.batch}, {trainer['tokens']} tokens per run, "
          f"median of {args.repeats} interleaved runs each; load {load_before} before, "
          f"{load_after} after")
    for mode, name in (("bare", "bare PyTorch loop"), ("trainer", "webtraj train")):
        runs = results[mode]
        print(f"  {name:18}: {median(mode, 'seconds'):8.0f} tokens/s "
              f"({median(mode, 'cpu_seconds'):.0f} per CPU-second)  peak RSS "
              f"{max(r['peak_rss_mb'] for r in runs):.0f} MB  final loss {runs[-1]['loss']:.3f}")
    head = trainer["lm_head"]
    print(f"  webtraj LM head: {head['path']} ({head['chosen_by']}; plain "
          f"{head['plain_ms']:.1f} ms, fused {head['fused_ms']:.1f} ms)" if head["plain_ms"]
          else f"  webtraj LM head: {head['path']} ({head['chosen_by']})")
    ratio = median("trainer", "seconds") / median("bare", "seconds")
    cpu_ratio = median("trainer", "cpu_seconds") / median("bare", "cpu_seconds")
    print(f"  ratio train / bare: {ratio:.2f} (target >= 0.8); per CPU-second {cpu_ratio:.2f}")


if __name__ == "__main__":
    main()
