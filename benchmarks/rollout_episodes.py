"""Benchmark: whole episodes, before and after, against the browser's limit.

(f) Episodes per minute of `webtraj run` (heuristic agent, the same 20 sandbox tasks) for a
    baseline commit checked out in a temporary git worktree ("before") and this checkout
    ("after"), 1 and 2 workers, and 2 workers running K episodes each; configurations
    interleaved, `--repeats` times each; median and min printed. Also the CPU utilisation of
    the machine's cores during each run, and where an "after" step's time goes (agent, action,
    settle, capture with its tree and screenshot parts, storage).
    Targets: episodes per minute per core >= 2x before (best configuration of each);
    2 workers >= 1.8x one worker.
(g) A recorded step (`run_episode`: agent, action, settle, observation, screenshots, journal,
    HAR) against a bare Playwright loop performing the same actions with the same captures
    (aria snapshot + PNG screenshot after the load event) and no recording, on the same 20
    tasks, interleaved task by task in one browser. Target: <= 1.5x.

    .venv/bin/python benchmarks/rollout_episodes.py [--parts f,g] [--baseline REV] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
TODAY = "2026-01-15"
TASKS = tuple(f"booking.{site}.{i:02d}" for site in ("hotels", "rentals", "flights", "transit",
                                                      "cars") for i in (1, 8, 15, 22))
TARGET_PER_CORE = 2.0
TARGET_WORKERS = 1.8
TARGET_BARE = 1.5
_FIRST_REF = re.compile(r"\[ref=(f\d+)?e\d+\]")


def _baseline_tree(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force",
                    str(where), rev], check=True, capture_output=True)
    return where


def _remove_tree(where: Path) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(where)],
                   check=False, capture_output=True)


def _busy_seconds() -> float:
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0)


def _tree_cpu_seconds() -> float:
    """CPU time of every finished descendant (the run, its workers, their Chromium, the
    sandbox server): what a run costs whatever else the machine is doing."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _episode_ends(out: Path) -> list[float]:
    ends = []
    for path in (out / "trajectories").glob("*/trajectory.json"):
        steps = json.loads(path.read_bytes())["steps"]
        if steps:
            ends.append(steps[-1]["started_at"] + steps[-1]["duration_s"])
    return sorted(ends)


def _breakdown(out: Path) -> dict[str, list[float]]:
    parts: dict[str, list[float]] = {}
    for path in (out / "trajectories").glob("*/trajectory.json"):
        for step in json.loads(path.read_bytes())["steps"]:
            for name, value in (step.get("timings") or {}).items():
                if value is not None:
                    parts.setdefault(name, []).append(value)
            parts.setdefault("step", []).append(step["duration_s"])
    return parts


def _run(src: Path, out: Path, workers: int, per_worker: int) -> dict[str, float]:
    """One `webtraj run` in a subprocess on `src`'s code: wall time, steady episodes/minute
    (between the first and the last episode's end) and the cores' utilisation meanwhile."""
    cmd = [sys.executable, "-c", "from webtraj.cli.app import main; main()", "run",
           "--suite", "booking", "--agent", "heuristic", "--today", TODAY,
           "--task-ids", ",".join(TASKS), "--workers", str(workers), "--out", str(out)]
    if per_worker > 1:
        cmd += ["--episodes-per-worker", str(per_worker)]
    env = {**os.environ, "PYTHONPATH": str(src), "WEBTRAJ_LLM_CACHE": str(out) + ".cache"}
    busy0, t0, own0 = _busy_seconds(), time.perf_counter(), _tree_cpu_seconds()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall, busy = time.perf_counter() - t0, _busy_seconds() - busy0
    own = _tree_cpu_seconds() - own0
    if done.returncode != 0:
        raise SystemExit(f"webtraj run failed ({src}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    ends = _episode_ends(out)
    steady = (len(ends) - 1) / (ends[-1] - ends[0]) * 60 if len(ends) > 1 else float("nan")
    return {"steady": steady, "overall": len(ends) / wall * 60, "wall": wall,
            "cpu": busy / (wall * (os.cpu_count() or 1)), "cpu_per_episode": own / len(ends)}


def part_f(args: argparse.Namespace) -> dict[str, float]:
    cores = os.cpu_count() or 1
    configs = [("before", 1, 1), ("before", 2, 1), ("after", 1, 1), ("after", 2, 1),
               ("after", 2, args.per_worker)]
    results: dict[tuple, list[dict[str, float]]] = {c: [] for c in configs}
    breakdown: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="webtraj-bench-") as tmp:
        base = _baseline_tree(args.baseline, Path(tmp) / "before")
        try:
            srcs = {"before": base / "src", "after": REPO / "src"}
            for rep in range(args.repeats):
                for version, workers, per in configs:
                    out = Path(tmp) / f"{version}-w{workers}-k{per}-{rep}"
                    results[(version, workers, per)].append(_run(srcs[version], out, workers,
                                                                  per))
                    if version == "after":
                        for k, v in _breakdown(out).items():
                            breakdown.setdefault(k, []).extend(v)
        finally:
            _remove_tree(base)
    print(f"(f) {len(TASKS)} heuristic episodes per run, {args.repeats} interleaved repeats, "
          f"{cores} cores; baseline {args.baseline}")
    print("    version  workers x episodes   episodes/min steady (median, min)   per core   "
          "with start-up   CPU used   CPU s/episode (reaped processes)")
    med: dict[tuple, float] = {}
    for c in configs:
        steady = [r["steady"] for r in results[c]]
        med[c] = statistics.median(steady)
        print(f"    {c[0]:7s}  {c[1]} x {c[2]}              {med[c]:7.1f}  {min(steady):7.1f}"
              f"              {med[c] / cores:6.1f}     "
              f"{statistics.median(r['overall'] for r in results[c]):7.1f}        "
              f"{statistics.median(r['cpu'] for r in results[c]) * 100:5.1f}%     "
              f"{statistics.median(r['cpu_per_episode'] for r in results[c]):6.2f}")
    before = max(med[c] for c in configs if c[0] == "before")
    after = max(med[c] for c in configs if c[0] == "after")
    per_core = after / before
    workers = med[("after", 2, 1)] / med[("after", 1, 1)]
    workers_best = max(med[("after", 2, 1)], med[("after", 2, args.per_worker)]) \
        / med[("after", 1, 1)]
    cpu_ratio = min(statistics.median(r["cpu_per_episode"] for r in results[c])
                    for c in configs if c[0] == "before") / min(
        statistics.median(r["cpu_per_episode"] for r in results[c])
        for c in configs if c[0] == "after")
    print(f"    episodes per CPU-second (what a saturated core yields), after / before: "
          f"{cpu_ratio:.2f}x")
    print(f"    per core, best after / best before: {per_core:.2f}x (target >= "
          f"{TARGET_PER_CORE}x: {'PASS' if per_core >= TARGET_PER_CORE else 'FAIL'})")
    one_cpu = statistics.median(r["cpu"] for r in results[("after", 1, 1)])
    print(f"    one worker alone keeps {one_cpu * 100:.0f}% of the machine busy (Chromium's "
          f"processes run in parallel): at the same CPU per episode, more workers can give at "
          f"most {1 / one_cpu:.2f}x")
    print(f"    2 workers / 1 worker (after): {workers:.2f}x; with {args.per_worker} episodes "
          f"each: {workers_best:.2f}x (target >= {TARGET_WORKERS}x: "
          f"{'PASS' if workers_best >= TARGET_WORKERS else 'FAIL'}); before: "
          f"{med[('before', 2, 1)] / med[('before', 1, 1)]:.2f}x")
    print("    where an 'after' step's time goes (median / mean ms over every step):")
    for name in ("step", "agent", "action", "settle", "capture", "tree", "screenshot",
                 "storage"):
        xs = breakdown.get(name)
        if xs:
            print(f"      {name:10s} {statistics.median(xs) * 1000:7.1f} "
                  f"{statistics.mean(xs) * 1000:7.1f}")
    return {"f_per_core_ratio": per_core, "f_workers_ratio": workers_best,
            "f_cpu_ratio": cpu_ratio}


async def _bare_episode(browser, task, actions: list[dict], config) -> list[float]:
    """The same actions by plain Playwright, each followed by the load event, an aria snapshot
    and a PNG screenshot: the browser's own cost of the episode."""
    context = await browser.new_context(
        viewport={"width": config.viewport_width, "height": config.viewport_height})
    page = await context.new_page()
    times = []
    try:
        await page.goto(task.start_url, wait_until="load")
        snapshot = await page.aria_snapshot(mode="ai")
        await page.screenshot(type="png")
        for action in actions:
            # The main document's refs carry its prefix (`f3e12` after a navigation).
            first = _FIRST_REF.search(snapshot)
            prefix = (first.group(1) or "") if first else ""
            ref = f"{prefix}e{action['id']}"
            t0 = time.perf_counter()
            if action["kind"] != "stop":
                loc = page.locator(f"aria-ref={ref}")
                if action["kind"] == "click":
                    await loc.click()
                else:
                    await loc.fill(action.get("value") or "")
                    if action.get("press_enter"):
                        await loc.press("Enter")
                await page.wait_for_load_state("load")
            snapshot = await page.aria_snapshot(mode="ai")
            await page.screenshot(type="png")
            times.append(time.perf_counter() - t0)
    finally:
        await context.close()
    return times


async def _part_g(args: argparse.Namespace) -> dict[str, float]:
    import datetime as dt

    from playwright.async_api import async_playwright

    from webtraj.agents.registry import make_agent
    from webtraj.browser.chromium import launch_chromium
    from webtraj.browser.config import EnvConfig
    from webtraj.execute.episode import EpisodeSpec, run_episode
    from webtraj.sites.sandbox import Sandbox

    recorded: list[float] = []
    bare: list[float] = []
    with Sandbox(dt.date.fromisoformat(TODAY)) as sandbox, \
            tempfile.TemporaryDirectory(prefix="webtraj-bench-") as tmp:
        tasks = {t.task_id: t for t in sandbox.tasks()}
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            agent = make_agent("heuristic")
            for rep in range(args.repeats):
                for task_id in TASKS:
                    task = tasks[task_id]
                    spec = EpisodeSpec(task=task, trial=rep, agent="heuristic")
                    workdir = Path(tmp) / f"{task_id}-{rep}"
                    workdir.mkdir()
                    config = EnvConfig(har_path=str(workdir / "network.har"))
                    traj = await run_episode(browser, agent, spec, workdir, env_config=config)
                    recorded += [s.duration_s for s in traj.steps]
                    actions = []
                    for s in traj.steps:
                        a = s.action
                        actions.append({"kind": a.kind.value if a else "stop",
                                        "id": a.element_id if a else None,
                                        "value": a.value if a else None,
                                        "press_enter": bool(a and a.press_enter)})
                    try:
                        bare += await _bare_episode(browser, task, actions, config)
                    except Exception as exc:  # a ref that drifted: skip that episode's tail
                        print(f"    (bare replay of {task_id} stopped: {type(exc).__name__})")
            await browser.close()
    r, b = statistics.median(recorded), statistics.median(bare)
    ratio = r / b
    print(f"(g) recorded step vs bare Playwright loop, {len(TASKS)} tasks x {args.repeats}")
    print(f"    recorded step (agent + action + settle + capture + storage): median "
          f"{r * 1000:.1f} ms over {len(recorded)} steps")
    print(f"    bare loop (action + load + aria snapshot + screenshot):       median "
          f"{b * 1000:.1f} ms over {len(bare)} steps")
    print(f"    ratio {ratio:.2f}x (target <= {TARGET_BARE}x: "
          f"{'PASS' if ratio <= TARGET_BARE else 'FAIL'})")
    return {"g_recorded_ms": r * 1000, "g_bare_ms": b * 1000, "g_ratio": ratio}


def part_g(args: argparse.Namespace) -> dict[str, float]:
    return asyncio.run(_part_g(args))


PARTS = {"f": part_f, "g": part_g}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="f,g")
    ap.add_argument("--baseline", default="4a46dee",
                    help="the commit measured as 'before' (default: before the speed-ups)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--per-worker", type=int, default=3,
                    help="episodes per worker in the last 'after' configuration")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for name in args.parts.split(","):
        PARTS[name.strip()](args)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
