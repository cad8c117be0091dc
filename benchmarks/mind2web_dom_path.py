"""Whole `webtraj mind2web` commands with the compiled dom path against the pure-Python path.

The compiled path (Cython on lxml's C API) was removed after this measurement
(docs/performance.md); to measure it again, check out the commit before its removal, build it
(`pip install -e .` there) and pass that checkout as `--compiled-src DIR`: the same commands
then run on its sources too (interleaved with the current, pure-Python ones).

Runs `webtraj mind2web rank` (BM25) and then `webtraj mind2web predict` (MindAct multiple
choice, top 50, its prompts built from each step's pruned page) as subprocesses, as a user
would, against the scripted OpenAI-compatible server (answers instantly, no cache), on:

- the real SeeAct step of the shared fixtures (when they are beside the checkout);
- a synthetic set of N Mind2Web-sized pages (`formats/mind2web/synthetic.py`, default 1,000).

Each configuration runs `--repeats` times, interleaved A/B/A/B (compiled, pure, compiled, ...)
so a change in machine load hits both alike; it prints the minimum and median wall time and the
minimum CPU time (user+sys of the command's process) of each, and the pure/compiled ratio.
Without `--compiled-src` only the current (pure-Python) path is timed.

    python benchmarks/mind2web_dom_path.py [--pages 1000] [--repeats 3] [--compiled-src DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from webtraj.formats.mind2web.synthetic import synthetic_task, write_raw_json
from webtraj.testing import ScriptedLLMServer

REAL_STEP = Path(__file__).resolve().parents[2] / "shared/fixtures/mind2web/seeact_step.jsonl"


def _run(args: list[str], *, pure: bool, cwd: Path, compiled_src: Path | None) -> tuple[
        float, float]:
    """(wall s, CPU s) of one CLI command in a subprocess."""
    env = dict(os.environ)
    if not pure and compiled_src is not None:
        env["PYTHONPATH"] = str(compiled_src / "src")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "webtraj.cli.app", "mind2web", *args],
                          cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(args)}\n{proc.stdout}\n{proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _reply(prompt: str) -> str:
    return "Answer: A." if "A." in prompt else "Answer: None of the above."


def bench(label: str, data: Path, work: Path, base_url: str, repeats: int,
          paths: list[bool], compiled_src: Path | None) -> None:
    commands = {
        "rank": ["rank", "--data", str(data), "--out", str(work / "ranks.jsonl")],
        "predict": ["predict", "--data", str(data), "--ranks", str(work / "ranks.jsonl"),
                    "--out", str(work / "preds.jsonl"), "--no-cache", "--concurrency", "8",
                    "--llm", f"base_url={base_url},model=scripted"],
    }
    results: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for _ in range(repeats):
        for name, args in commands.items():
            for pure in paths:  # interleaved: compiled, pure, compiled, pure, ...
                results.setdefault((name, pure), []).append(
                    _run(args, pure=pure, cwd=work, compiled_src=compiled_src))
    print(f"\n== {label}")
    print(f"{'command':10} {'path':9} {'wall min':>9} {'wall med':>9} {'CPU min':>8}")
    for name in commands:
        best: dict[bool, float] = {}
        for pure in paths:
            runs = results[(name, pure)]
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            best[pure] = min(walls)
            print(f"{name:10} {'pure' if pure else 'compiled':9} {min(walls):8.2f}s "
                  f"{statistics.median(walls):8.2f}s {min(cpus):7.2f}s")
        if len(best) == 2:
            print(f"{name:10} pure/compiled (min wall): {best[True] / best[False]:.2f}x, "
                  f"saves {best[True] - best[False]:.2f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=1000, help="synthetic pages (steps)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compiled-src", type=Path,
                    help="a checkout with the compiled dom path built, timed against this one")
    args = ap.parse_args()
    paths = [False, True] if args.compiled_src else [True]
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(
            default=lambda r: _reply(r.last_user), keep_log=False) as srv:
        work = Path(tmp)
        if REAL_STEP.exists():
            bench("real SeeAct step (shared fixture)", REAL_STEP, work, srv.base_url,
                  args.repeats, paths, args.compiled_src)
        rng = random.Random(args.seed)
        tasks, n = [], 0
        while n < args.pages:
            steps = min(rng.randint(2, 8), args.pages - n)
            tasks.append(synthetic_task(rng, len(tasks), n_steps=steps))
            n += steps
        data = work / "synthetic"
        write_raw_json(data, tasks)
        size = sum(p.stat().st_size for p in data.iterdir()) / 1e6
        bench(f"synthetic: {n} pages in {len(tasks)} tasks ({size:.0f} MB)", data, work,
              srv.base_url, args.repeats, paths, args.compiled_src)


if __name__ == "__main__":
    main()
