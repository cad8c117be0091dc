"""Benchmark on a GPU: `webtraj train` with its defaults against the bare
length-grouped PyTorch loop with the largest batch that fits, on the same card, the same
records and the same LoRA (the constraint-based evaluation paper: q_proj/v_proj, r 16).

Model: a Llama built from a config (presets `0.73b`: hidden 2048, 16 layers, 16 heads,
intermediate 4096; `7b`: hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate 14336;
`tiny`: a CPU smoke check), random weights in bf16 on the GPU, a byte-level BPE tokenizer
(32k) trained on the records. Records: the replay agent on 2 sandbox tasks in Chromium,
curated by the oracle judge, repeated up to `--records`. Each measurement runs in a fresh
child process. Model FLOPs: 4·N per token (forward 2N, backward through the activations 2N;
the frozen weights get no gradient), N = parameters less the input embedding.

    .venv/bin/python benchmarks/train_gpu.py --preset 0.73b --records 283
    .venv/bin/python benchmarks/train_gpu.py --preset 7b --records 64
    .venv/bin/python benchmarks/train_gpu.py --preset tiny --records 24   # CPU smoke check
Target (H100/H200): webtraj train >= 0.9x the best bare loop's tokens/s, no OOM at defaults.
"""

from __future__ import annotations

import argparse
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
            "peak_mb": r["peak_memory_mb"], "batching": r["batching"]}


def run_bare(data: Path, base: Path, batch: int) -> dict:
    """Length-grouped batches of `batch` records, padded, bf16 autocast on a GPU, sdpa,
    LoRA q_proj/v_proj from PEFT, AdamW; one epoch."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from webtraj.train.data import read_split

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    tok = AutoTokenizer.from_pretrained(base)
    seqs = []
    for ex in read_split(data / "train.jsonl"):
        prompt = tok.apply_chat_template(ex.prompt, add_generation_prompt=True,
                                         tokenize=True)["input_ids"]
        full = tok.apply_chat_template(ex.prompt + ex.completion, tokenize=True)["input_ids"]
        seqs.append((full, len(prompt)))
    seqs.sort(key=lambda s: -len(s[0]))
    model = AutoModelForCausalLM.from_pretrained(base, dtype="auto", attn_implementation="sdpa")
    model = get_peft_model(model.to(device), LoraConfig(
        r=16, lora_alpha=32, lora_dropout=0.05, target_modules=["q_proj", "v_proj"],
        task_type="CAUSAL_LM"))
    model.config.use_cache = False
    model.train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    batches = []
    for i in range(0, len(seqs), batch):
        chunk = seqs[i:i + batch]
        width = max(len(s) for s, _ in chunk)
        ids = torch.full((len(chunk), width), tok.pad_token_id)
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
    try:
        for ids, mask, labels in batches:
            with torch.autocast(device, dtype=torch.bfloat16, enabled=cuda):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        if cuda:
            torch.cuda.synchronize()
    except torch.OutOfMemoryError:
        return {"oom": True, "batch": batch}
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
        res = run_bare(data, base, args.batch)
    print(json.dumps(res))


def spawn(args: argparse.Namespace, mode: str, batch: int = 0) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, "--work", str(args.work),
                           "--batch", str(batch)], capture_output=True, text=True)
    if proc.returncode:
        if "OutOfMemoryError" in proc.stderr or "out of memory" in proc.stderr:
            return {"oom": True, "batch": batch}
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", choices=sorted(PRESETS), default="0.73b")
    for key in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab"):
        ap.add_argument(f"--{key.replace('_', '-')}", type=int, default=None)
    ap.add_argument("--records", type=int, default=283)
    ap.add_argument("--max-batch", type=int, default=16, help="Largest bare-loop batch tried.")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--child", choices=("webtraj", "bare"), default=None)
    ap.add_argument("--batch", type=int, default=0)
    args = ap.parse_args()
    args.work = args.work or Path(tempfile.mkdtemp(prefix="webtraj-bench-train-gpu-"))
    if args.child:
        child(args)
        return
    import torch

    shape = {k: getattr(args, k) or v for k, v in PRESETS[args.preset].items()}
    args.work.mkdir(parents=True, exist_ok=True)
    prepare(args.work, args.records, shape)
    n = model_params(args.work / "base")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    rows = []
    ours = spawn(args, "webtraj")
    if "error" in ours:
        raise SystemExit(f"webtraj train failed:\n{ours['error']}")
    rows.append(("webtraj train (defaults)", ours))
    best = None
    for batch in (b for b in BATCHES if b <= args.max_batch):
        res = spawn(args, "bare", batch)
        if res.get("oom"):
            print(f"  bare loop, batches of {batch}: out of memory", flush=True)
            continue
        best = res
        break
    if best is None:
        raise SystemExit("the bare loop does not fit even with batches of 1")
    rows.append((f"bare loop, length-grouped batches of {best['batch']}", best))
    print(f"train_gpu benchmark on {device}: {json.dumps(shape)}, N = {n / 1e9:.4g}B, "
          f"{args.records} records")
    print(f"  {'':44} {'tokens/s':>10} {'TFLOP/s':>8} {'peak memory':>12}")
    for name, r in rows:
        tps = r["tokens"] / r["seconds"]
        peak = "-" if r.get("peak_mb") is None else f"{r['peak_mb'] / 1024:.1f} GiB"
        print(f"  {name:44} {tps:10.0f} {4 * n * tps / 1e12:8.3g} {peak:>12}")
    b = ours["batching"]
    print(f"  webtraj train: {b['records_per_step']} records/step, micro-batches <= "
          f"{b['tokens_per_batch']} tokens ({b['tokens_per_batch_from']}), {b['layout']}, "
          f"{b['attention_path']}")
    ratio = (ours["tokens"] / ours["seconds"]) / (best["tokens"] / best["seconds"])
    print(f"  ratio webtraj / best bare loop: {ratio:.2f} (target >= 0.9 on an H100/H200)")


if __name__ == "__main__":
    main()
