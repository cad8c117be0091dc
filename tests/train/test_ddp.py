"""Data-parallel training (issue 29): `webtraj train` under torchrun with 2 CPU processes
(gloo) trains the same adapter as 1 process on the same records, with the same effective
batch, and the same validation loss (token-budget evaluation micro-batches shared out to the
processes, per-record losses gathered). Slow: two real launches (~1-2 min on a loaded 2-core
machine)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import orjson
import pytest
import torch

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_train_the_same_adapter_as_one(split_data, base_model, tmp_path):
    from safetensors.torch import load_file

    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(split_data / "validation.jsonl", data / "train.jsonl")  # 11 records
    # 5 validation records: 3 micro-batches of at most 2048 tokens, dealt to 2 processes.
    lines = (split_data / "train.jsonl").read_bytes().splitlines()[:5]
    (data / "validation.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    args = ["-m", "webtraj.cli.app", "train", "--data", str(data), "--base", str(base_model),
            "--epochs", "1", "--batch-size", "8", "--lr", "1e-2", "--warmup", "0",
            "--lora-dropout", "0", "--targets", "all-linear", "--modules-to-save", "lm_head",
            "--tokens-per-batch", "2048", "--precision", "fp32"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    one = subprocess.run([sys.executable, *args, "--out", str(tmp_path / "one")], env=env,
                         capture_output=True, text=True)
    assert one.returncode == 0, one.stdout + one.stderr
    two = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node",
                          "2", "--master_addr", "127.0.0.1", "--master_port",
                          str(_free_port()), *args, "--out", str(tmp_path / "two")],
                         env=env, capture_output=True, text=True)
    assert two.returncode == 0, two.stdout + two.stderr
    assert two.stdout.count("Loss per epoch") == 1  # the summary once, from rank 0
    results = {n: orjson.loads((tmp_path / n / "train_result.json").read_bytes())
               for n in ("one", "two")}
    assert results["one"]["batching"]["processes"] == 1
    assert results["two"]["batching"]["processes"] == 2
    assert results["one"]["steps"] == results["two"]["steps"] == 2  # 8 + 3 records
    assert results["two"]["final_loss"] == pytest.approx(results["one"]["final_loss"],
                                                         rel=1e-5)
    validation = [results[n]["losses"][-1]["validation_loss"] for n in ("one", "two")]
    assert validation[0] is not None
    assert validation[1] == pytest.approx(validation[0], rel=1e-5)
    a = load_file(tmp_path / "one" / "adapter" / "adapter_model.safetensors")
    b = load_file(tmp_path / "two" / "adapter" / "adapter_model.safetensors")
    base = load_file(base_model / "model.safetensors")
    assert a.keys() == b.keys() and len(a) > 0
    head = next(k for k in a if "lm_head" in k)
    assert not torch.allclose(a[head], base["lm_head.weight"], atol=1e-4)  # it trained
    # AdamW's first steps move an element by ~lr x sign(gradient) whatever its size, so an
    # element whose gradient is near AdamW's eps magnifies summation-order differences: with
    # the plain LM head (logits of the answer positions only, so micro-batches of other
    # shapes) one element of 1,024 differed by 6.1e-5 (9e-6 everywhere else, and with the
    # fused head).
    for k in a:
        torch.testing.assert_close(b[k], a[k], atol=1e-4, rtol=1e-4)
