"""Whole `webtraj mind2web` commands with the compiled dom path against the pure-Python path.

Runs `webtraj mind2web rank` (BM25) and then `webtraj mind2web predict` (MindAct multiple
choice, top 50, its prompts built from each step's pruned page) as subprocesses, as a user
would, against the scripted OpenAI-compatible server (answers instantly, no cache), on:

- the real SeeAct step of the shared fixtures (when they are beside the checkout);
- a synthetic set of N Mind2Web-sized pages (`formats/mind2web/synthetic.py`, default 1,000).

Each configuration runs `--repeats` times, interleaved A/B/A/B (compiled, pure, compiled, ...)
so a change in machine load hits both alike; it prints the minimum and median wall time and the
minimum CPU time (user+sys of the command's process) of each, and the pure/compiled ratio.
The pure path is selected with WEBTRAJ_DOM_PURE=1; without a built extension only the pure
path is timed.

    python benchmarks/mind2web_dom_path.py [--pages 1000] [--repeats 3]
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


def _accel_built() -> bool:
    try:
        from webtraj.dom.page import ACCEL  # type: ignore[attr-defined]
    except ImportError:
        return False
    return ACCEL is not None


def _run(args: list[str], *, pure: bool, cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one CLI command in a subprocess."""
    env = dict(os.environ, WEBTRAJ_DOM_PURE="1" if pure else "0")
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
          paths: list[bool]) -> None:
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
                results.setdefault((name, pure), []).append(_run(args, pure=pure, cwd=work))
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
    args = ap.parse_args()
    paths = [False, True] if _accel_built() else [True]
    if len(paths) == 1:
        print("compiled dom path not built: timing the pure-Python path only")
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(
            default=lambda r: _reply(r.last_user), keep_log=False) as srv:
        work = Path(tmp)
        if REAL_STEP.exists():
            bench("real SeeAct step (shared fixture)", REAL_STEP, work, srv.base_url,
                  args.repeats, paths)
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
              srv.base_url, args.repeats, paths)


if __name__ == "__main__":
    main()
