"""Benchmark on a GPU: `webtraj train` with its defaults against the bare
length-grouped PyTorch loop with the largest batch that fits, on the same card, the same
records and the same LoRA (the constraint-based evaluation paper: q_proj/v_proj, r 16).

Model: a Llama built from a config (presets `0.73b`: hidden 2048, 16 layers, 16 heads,
intermediate 4096; `7b`: hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate 14336;
`tiny`: a CPU smoke check), random weights in bf16 on the GPU, a byte-level BPE tokenizer
(32k) trained on the records. Records: the replay agent on 2 sandbox tasks in Chromium,
curated by the oracle judge, repeated up to `--records`. Each measurement runs in a fresh
child process: `webtraj train` as a user runs it (one epoch, its defaults), then the bare loop
in one process that tries batches from --max-batch down (an out-of-memory batch is freed and
the next smaller tried), so the largest batch that fits is found with one model load. Model
FLOPs: 4·N per token (forward 2N, backward through the activations 2N; the frozen weights get
no gradient), N = parameters less the input embedding. Prints one table and writes it as JSON
(--json, default WORK/train_gpu.json).

Bounded to under 4 minutes on an H100/H200 by the records per preset (0.73b: 283 records,
~470k tokens; 7b: 64 records, ~105k tokens; estimates from the issue 29 figures, not yet
measured by the project: the 7B run spends most of its time writing and loading its 14 GB
of random weights).

    .venv/bin/python benchmarks/train_gpu.py --preset 0.73b
    .venv/bin/python benchmarks/train_gpu.py --preset 7b
    .venv/bin/python benchmarks/train_gpu.py --preset tiny   # CPU smoke check
Targets (H200): webtraj train >= 0.9x the best bare loop's tokens/s, >= 150 model TFLOP/s at
0.73B, no OOM at defaults.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRESETS = {
    "0.73b": {"hidden": 2048, "layers": 16, "heads": 16, "kv_heads": 16,
              "intermediate": 4096, "vocab": 32_000},
    "7b": {"hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 8, "intermediate": 14_336,
           "vocab": 32_000},
    "tiny": {"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 4, "intermediate": 128,
             "vocab": 2_000},
}
# Records per preset: each run under 4 minutes on an H100/H200 (see above).
RECORDS = {"0.73b": 283, "7b": 64, "tiny": 24}
BATCHES = (64, 32, 16, 8, 4, 2, 1)


def prepare(work: Path, records: int, shape: dict) -> tuple[Path, Path]:
    import orjson

    from webtraj.testing.tiny_model import build_tiny_model, chat_texts

    sys.path.insert(0, str(Path(__file__).parent))
    from train import replay_records  # benchmarks/train.py: the same curated records

    data, base = work / "data", work / "base"
    lines = replay_records(work, work / "curated").read_bytes().splitlines()
    data.mkdir(parents=True, exist_ok=True)
    (data / "train.jsonl").write_bytes(b"\n".join(lines[i % len(lines)]
                                                  for i in range(records)) + b"\n")
    if not (base / "config.json").exists():
        import torch

        cuda = torch.cuda.is_available()
        recs = [orjson.loads(x) for x in lines]
        build_tiny_model(chat_texts(recs), base,
                         vocab_size=shape["vocab"], hidden_size=shape["hidden"],
                         layers=shape["layers"], heads=shape["heads"],
                         kv_heads=shape["kv_heads"], intermediate_size=shape["intermediate"],
                         merge_lines=False, dtype="bfloat16" if cuda else "float32",
                         device="cuda" if cuda else "cpu")
    return data, base


def model_params(base: Path) -> int:
    """N of the 4·N FLOPs per token: every parameter but the input embedding."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(base))
    return sum(p.numel() for n, p in model.named_parameters() if "embed_tokens" not in n)


def run_webtraj(data: Path, base: Path, out: Path) -> dict:
    """`webtraj train` with its defaults (one epoch), as a user runs it."""
    proc = subprocess.run([sys.executable, "-m", "webtraj.cli.app", "train", "--data",
                           str(data), "--base", str(base), "--out", str(out), "--epochs", "1",
                           "--no-resume"], capture_output=True, text=True)
    if proc.returncode:
        return {"error": (proc.stdout + proc.stderr)[-2000:]}
    r = json.loads((out / "train_result.json").read_text())
    return {"tokens": r["trained_tokens"], "seconds": r["runtime_s"],
            "peak_mb": r["peak_memory_mb"], "batching": r["batching"], "lm_head": r["lm_head"]}


def tokenized(data: Path, tok: object) -> list[tuple[list[int], int]]:
    """(ids, prompt length) of every record, longest first (length-grouped batches)."""
    from webtraj.train.data import read_split

    seqs = []
    for ex in read_split(data / "train.jsonl"):
        prompt = tok.apply_chat_template(ex.prompt, add_generation_prompt=True,
                                         tokenize=True)["input_ids"]
        full = tok.apply_chat_template(ex.prompt + ex.completion, tokenize=True)["input_ids"]
        seqs.append((full, len(prompt)))
    return sorted(seqs, key=lambda s: -len(s[0]))


def run_bare(data: Path, base: Path, batches: list[int]) -> dict:
    """Length-grouped batches, padded, bf16 autocast on a GPU, sdpa, LoRA q_proj/v_proj from
    PEFT, AdamW; one epoch at the first of `batches` that fits (the others ran out of
    memory)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    tok = AutoTokenizer.from_pretrained(base)
    seqs = tokenized(data, tok)
    model = AutoModelForCausalLM.from_pretrained(base, dtype="auto", attn_implementation="sdpa")
    model = get_peft_model(model.to(device), LoraConfig(
        r=16, lora_alpha=32, lora_dropout=0.05, target_modules=["q_proj", "v_proj"],
        task_type="CAUSAL_LM"))
    model.config.use_cache = False
    model.train()
    oom = []
    for batch in batches:
        try:
            res = bare_epoch(model, seqs, batch, tok.pad_token_id, device)
        except torch.OutOfMemoryError:
            oom.append(batch)
            model.zero_grad(set_to_none=True)
            torch.cuda.empty_cache()
            continue
        return {**res, "out_of_memory": oom}
    return {"oom": True, "out_of_memory": oom}


def bare_epoch(model: object, seqs: list, batch: int, pad: int, device: str) -> dict:
    import torch

    cuda = device == "cuda"
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
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
        batches.append((ids.to(device), mask.to(device), labels.to(device)))
    if cuda:
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for ids, mask, labels in batches:
        with torch.autocast(device, dtype=torch.bfloat16, enabled=cuda):
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    if cuda:
        peak = torch.cuda.max_memory_allocated() / 2**20
    else:  # peak RSS on CPU, as webtraj train reports there
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"tokens": sum(len(s) for s, _ in seqs), "seconds": seconds, "peak_mb": peak,
            "batch": batch}


def child(args: argparse.Namespace) -> None:
    work = args.work
    data, base = work / "data", work / "base"
    if args.child == "webtraj":
        res = run_webtraj(data, base, work / f"out-{time.time_ns()}")
    else:
        res = run_bare(data, base, [b for b in BATCHES if b <= args.max_batch])
    print(json.dumps(res))


def spawn(args: argparse.Namespace, mode: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, "--work", str(args.work),
                           "--max-batch", str(args.max_batch)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(rows: list[dict]) -> list[str]:
    lines = [f"  {'':44} {'tokens/s':>10} {'TFLOP/s':>8} {'peak memory':>12} {'ratio':>6}"]
    for r in rows:
        peak = "-" if r["peak_mb"] is None else f"{r['peak_mb'] / 1024:.1f} GiB"
        lines.append(f"  {r['name']:44} {r['tokens_per_s']:10.0f} {r['tflops']:8.3g} "
                     f"{peak:>12} {r['ratio']:6.2f}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", choices=sorted(PRESETS), default="0.73b")
    for key in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab"):
        ap.add_argument(f"--{key.replace('_', '-')}", type=int, default=None)
    ap.add_argument("--records", type=int, default=None,
                    help="Records (default per preset: 0.73b 283, 7b 64, tiny 24).")
    ap.add_argument("--max-batch", type=int, default=16, help="Largest bare-loop batch tried.")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None,
                    help="Where the table goes as JSON (default WORK/train_gpu.json).")
    ap.add_argument("--child", choices=("webtraj", "bare"), default=None)
    args = ap.parse_args()
    args.work = args.work or Path(tempfile.mkdtemp(prefix="webtraj-bench-train-gpu-"))
    if args.child:
        child(args)
        return
    import torch

    started = time.perf_counter()
    records = args.records or RECORDS[args.preset]
    shape = {k: getattr(args, k) or v for k, v in PRESETS[args.preset].items()}
    args.work.mkdir(parents=True, exist_ok=True)
    prepare(args.work, records, shape)
    n = model_params(args.work / "base")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    ours = spawn(args, "webtraj")
    if "error" in ours:
        raise SystemExit(f"webtraj train failed:\n{ours['error']}")
    best = spawn(args, "bare")
    for batch in best["out_of_memory"]:
        print(f"  bare loop, batches of {batch}: out of memory", flush=True)
    if best.get("oom"):
        raise SystemExit("the bare loop does not fit even with batches of 1")
    best_tps = best["tokens"] / best["seconds"]
    rows = []
    for name, r in (("webtraj train (defaults)", ours),
                    (f"bare loop, length-grouped batches of {best['batch']}", best)):
        tps = r["tokens"] / r["seconds"]
        rows.append({"name": name, "tokens": r["tokens"], "seconds": r["seconds"],
                     "tokens_per_s": tps, "tflops": 4 * n * tps / 1e12,
                     "peak_mb": r.get("peak_mb"), "ratio": tps / best_tps})
    print(f"train_gpu benchmark on {device}: {json.dumps(shape)}, N = {n / 1e9:.4g}B, "
          f"{records} records")
    print("\n".join(table(rows)))
    b, head = ours["batching"], ours["lm_head"]
    print(f"  webtraj train: {b['records_per_step']} records/step, micro-batches <= "
          f"{b['tokens_per_batch']} tokens ({b['tokens_per_batch_from']}), {b['layout']}, "
          f"{b['attention_path']}; LM head {head['path']} ({head['chosen_by']})")
    ratio = rows[0]["ratio"]
    print(f"  ratio webtraj / best bare loop: {ratio:.2f} (target >= 0.9 on an H100/H200); "
          f"whole benchmark {time.perf_counter() - started:.0f} s")
    out = args.json or args.work / "train_gpu.json"
    out.write_text(json.dumps({
        "measured": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "device": device,
        "preset": args.preset, "shape": shape, "parameters": n, "records": records,
        "rows": rows, "ratio": ratio, "webtraj_batching": b, "webtraj_lm_head": head,
        "bare_out_of_memory": best["out_of_memory"],
        "seconds": time.perf_counter() - started}, indent=2))
    print(f"  table written to {out}")


if __name__ == "__main__":
    main()
