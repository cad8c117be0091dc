"""Benchmark: MiniWoB++ in webtraj and in BrowserGym, the same episodes and the same policy.

The same 30 episodes (click-button, enter-text, click-checkboxes x seeds 0-9) with the same
scripted policy (benchmarks/miniwob/policy.py: the instruction and the elements' roles and
names in, a click or a typed text out), one worker, process start to finish:

- webtraj: `webtraj run --suite miniwob ... --agent policy:ScriptedPolicy --workers 1`
  (defaults: screenshots, HAR, scoring) of this checkout, and optionally of a baseline commit
  checked out in a temporary git worktree (`--baseline REV`, "before");
- BrowserGym 0.14.3 (`browsergym-miniwob==0.14.3`, installed by this script into its own
  virtual environment under the user cache folder, or skipped with a message when it cannot
  be), with its defaults and with its fixed waits off (slow_mo 0, pre_observation_delay 0),
  on the same pages (the `miniwob` package's HTML, file://).

Both run the binary webtraj picks for a headless launch (browser/chromium.py: Debian's
chromium-headless-shell when installed, the browser Playwright itself runs headless, else
/usr/bin/chromium); `--browsergym-full` adds BrowserGym on Debian's full /usr/bin/chromium
(the comparison before webtraj took the headless shell). Configurations are interleaved,
`--repeats` times; per configuration the median of: episodes per minute (end to end),
seconds per step, start-up (process start to the first episode's first action), CPU seconds
(this process's children: every process of the run) per episode, success; the machine's load
(/proc/loadavg) during each repetition. Ratios: webtraj over each BrowserGym mode.
Targets: >= 4x BrowserGym's defaults and >= 2.7x with its waits off, 30/30 success for all.

`--startup` also measures webtraj's start-up alone for 30 and 300 episodes (the run is
stopped once its first episode is stored) against a bare launch of Chromium.

    .venv/bin/python benchmarks/miniwob_vs_browsergym.py [--repeats 3] [--baseline REV]
        [--startup] [--skip-browsergym] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
TASKS = ("click-button", "enter-text", "click-checkboxes")
SEEDS = "0-9"
FULL_CHROMIUM = "/usr/bin/chromium"
BROWSERGYM = "browsergym-miniwob==0.14.3"
TARGET_DEFAULTS = 4.0
TARGET_NO_WAITS = 2.7


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("WEBTRAJ_BENCH_CACHE") or Path(base) / "webtraj-bench")


def browsergym_python() -> Path | None:
    """The Python of a virtual environment holding BrowserGym (made and filled on first
    use); None, with a message, when it cannot be installed."""
    venv = _cache_root() / "browsergym-0.14.3"
    python = venv / "bin" / "python"
    ok = python.exists() and subprocess.run(
        [str(python), "-c", "import browsergym.miniwob"], capture_output=True).returncode == 0
    if ok:
        return python
    print(f"installing {BROWSERGYM} into {venv} ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", BROWSERGYM], check=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"BrowserGym skipped: {BROWSERGYM} could not be installed ({exc})")
        return None
    return python


class TreeCPU:
    """CPU seconds of a process and all its descendants, sampled every 0.1 s (each process's
    last reading): counts the browsers a framework leaves unreaped, which the kernel's
    RUSAGE_CHILDREN would miss."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.seen: dict[tuple[int, float], float] = {}
        self.kinds: dict[tuple[int, float], str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                break
            for proc in procs:
                try:
                    key = (proc.pid, proc.create_time())
                    if key not in self.kinds:
                        self.kinds[key] = process_kind(proc.cmdline())
                    t = proc.cpu_times()
                    self.seen[key] = t.user + t.system
                except psutil.Error:
                    pass
            self._stop.wait(0.1)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return sum(self.seen.values())

    def by_kind(self) -> dict[str, float]:
        """The sampled CPU seconds per kind of process (`process_kind`)."""
        out: dict[str, float] = {}
        for key, cpu in self.seen.items():
            out[self.kinds[key]] = out.get(self.kinds[key], 0.0) + cpu
        return out


def process_kind(cmdline: list[str]) -> str:
    """What a process of a run is: Chromium's browser, renderers, GPU or utility process,
    Playwright's driver, a worker, the run's own process, the MiniWoB++ server."""
    line = " ".join(cmdline)
    # The program (or what its shell wrapper runs), not any argument: BrowserGym's Python is
    # given `--chromium PATH`.
    program = [w for w in cmdline[:3] if not w.startswith("-")][:2]
    if cmdline[:1] == ["/proc/self/exe"] or any(Path(w).name.startswith("chromium")
                                                 for w in program):
        kind = next((t for t in ("renderer", "gpu-process", "utility", "zygote")
                     if f"--type={t}" in line), "browser")
        return f"chromium {kind}"
    if "playwright" in line and "driver" in line or cmdline[:1] and "node" in cmdline[0]:
        return "playwright driver"
    if "webtraj.suites.miniwob" in line:
        return "miniwob server"
    if "multiprocessing" in line:
        return "worker or helper (python)"
    return "run's own process (python)" if cmdline else "exited"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _measured(cmd: list[str], env: dict[str, str] | None = None
              ) -> tuple[subprocess.CompletedProcess, float, float, dict[str, float]]:
    """Run `cmd`: its result, wall seconds, CPU seconds of its whole process tree (the larger
    of the sampled tree and the kernel's count of reaped children), and the sampled CPU
    seconds by kind of process."""
    cpu0, t0 = _children_cpu(), time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    tree = TreeCPU(proc.pid)
    out, err = proc.communicate()
    wall = time.time() - t0
    cpu = max(tree.stop(), _children_cpu() - cpu0)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), wall, cpu, tree.by_kind()


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 1)[0]


def _webtraj_cmd(out: Path, seeds: str) -> list[str]:
    # The console script as users run it (the tree's own code first on PYTHONPATH).
    return [str(Path(sys.executable).with_name("webtraj")), "run",
            "--suite", "miniwob", "--task-ids", ",".join(TASKS), "--seeds", seeds,
            "--agent", "policy:ScriptedPolicy", "--workers", "1",
            "--max-steps", "10", "--timeout", "60", "--out", str(out)]


def _env(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{BENCH / 'miniwob'}",
            "COLUMNS": "200"}


def _read_run(out: Path) -> dict[str, object]:
    from webtraj.store import RunStore

    with RunStore.open(out) as store:
        trajs = list(store.iter_trajectories())
        won = {t.task.task_id for t in trajs for s in store.scores(t.trajectory_id,
                                                                   evaluator="miniwob")
               if s.value == 1.0}
        success = len(won)
    steps = [s for t in trajs for s in t.steps]
    firsts = [t.steps[0].started_at for t in trajs if t.steps and t.steps[0].started_at]
    return {"episodes": len(trajs), "success": success, "steps": len(steps),
            "failed": sorted(t.task.task_id for t in trajs if t.task.task_id not in won),
            "step_s": statistics.mean(s.duration_s or 0.0 for s in steps) if steps else None,
            "first_action": min(firsts) if firsts else None}


def run_webtraj(src: Path, scratch: Path, label: str) -> dict[str, object]:
    out = scratch / f"{label}-{time.monotonic_ns()}"
    t0 = time.time()
    proc, wall, cpu, kinds = _measured(_webtraj_cmd(out, SEEDS), _env(src))
    if proc.returncode != 0:
        raise SystemExit(f"{label}: webtraj run failed:\n{proc.stdout[-2000:]}"
                         f"{proc.stderr[-2000:]}")
    got = _read_run(out)
    return {"wall_s": wall, "cpu_s": cpu, "episodes": got["episodes"],
            "success": got["success"], "steps": got["steps"], "step_s": got["step_s"],
            "startup_s": (got["first_action"] or t0) - t0,  # type: ignore[operator]
            "failed": got["failed"], "cpu_by_kind": kinds}


def run_browsergym(python: Path, no_waits: bool, chromium: str | None = None
                   ) -> dict[str, object]:
    from webtraj.browser.chromium import chromium_path
    from webtraj.suites.miniwob.assets import html_dir

    cmd = [str(python), str(BENCH / "miniwob" / "browsergym_side.py"), "--miniwob-url",
           f"file://{html_dir()}/miniwob/", "--tasks", ",".join(TASKS), "--seeds", SEEDS,
           "--chromium", chromium or chromium_path(headless=True)]
    if no_waits:
        cmd.append("--no-waits")
    proc, wall, cpu, kinds = _measured([*cmd, "--t0", repr(time.time())])
    if proc.returncode != 0:
        raise SystemExit(f"BrowserGym failed:\n{proc.stderr[-3000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    eps = data["episodes"]
    step_s = [s for e in eps for s in e["step_s"]]
    return {"wall_s": wall, "cpu_s": cpu, "episodes": len(eps),
            "success": sum(e["success"] for e in eps), "steps": len(step_s),
            "step_s": statistics.mean(step_s) if step_s else None,
            "startup_s": data["startup_s"],
            "failed": [f"{e['task']}/{e['seed']}" for e in eps if not e["success"]],
            "cpu_by_kind": kinds}


def chromium_launch_s() -> float:
    """A bare Playwright start and launch of the same Chromium (the browser's own launch)."""
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    async def once() -> float:
        t0 = time.perf_counter()
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            took = time.perf_counter() - t0
            await browser.close()
        return took

    return asyncio.run(once())


def webtraj_startup(src: Path, scratch: Path, seeds: str) -> float:
    """Process start to the first episode's first action, the run stopped once that episode
    is stored (so 300 episodes cost one)."""
    out = scratch / f"startup-{seeds}-{time.monotonic_ns()}"
    t0 = time.time()
    proc = subprocess.Popen(_webtraj_cmd(out, seeds), env=_env(src), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if any(out.glob("trajectories/*/trajectory.json")):
                break
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    first = _read_run(out)["first_action"]
    return (first or float("nan")) - t0  # type: ignore[operator]


def _median(rows: list[dict[str, object]], key: str) -> float:
    vals = [float(r[key]) for r in rows if r.get(key) is not None]  # type: ignore[arg-type]
    return statistics.median(vals) if vals else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="a commit to measure as 'before' (git worktree)")
    parser.add_argument("--startup", action="store_true",
                        help="also webtraj's start-up for 30 and 300 episodes")
    parser.add_argument("--skip-browsergym", action="store_true")
    parser.add_argument("--browsergym-full", action="store_true",
                        help="also BrowserGym on Debian's full /usr/bin/chromium")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="mw-vs-bg-"))
    configs: dict[str, object] = {"webtraj": lambda: run_webtraj(REPO / "src", scratch,
                                                                  "after")}
    base_tree: Path | None = None
    if args.baseline:
        base_tree = scratch / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force",
                        str(base_tree), args.baseline], check=True, capture_output=True)
        configs["webtraj before"] = lambda: run_webtraj(base_tree / "src", scratch, "before")
    python = None if args.skip_browsergym else browsergym_python()
    if python is not None:
        configs["BrowserGym defaults"] = lambda: run_browsergym(python, False)
        configs["BrowserGym waits off"] = lambda: run_browsergym(python, True)
        if args.browsergym_full:
            configs["BrowserGym defaults, full chromium"] = lambda: run_browsergym(
                python, False, FULL_CHROMIUM)
            configs["BrowserGym waits off, full chromium"] = lambda: run_browsergym(
                python, True, FULL_CHROMIUM)
    results: dict[str, list[dict[str, object]]] = {k: [] for k in configs}
    try:
        names = list(configs)
        for rep in range(args.repeats):
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                load0 = _load()
                row = configs[name]()  # type: ignore[operator]
                row["load"] = f"{load0}-{_load()}"
                results[name].append(row)
                print(f"rep {rep + 1} {name}: {json.dumps(row)}", flush=True)
        startup: dict[str, object] = {}
        if args.startup:
            startup["chromium_launch_s"] = statistics.median(chromium_launch_s()
                                                             for _ in range(3))
            for seeds, n in (("0-9", 30), ("0-99", 300)):
                startup[f"webtraj_{n}"] = [webtraj_startup(REPO / "src", scratch, seeds)
                                           for _ in range(2)]
                startup[f"load_{n}"] = _load()
    finally:
        if base_tree is not None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(base_tree)], check=False, capture_output=True)

    print("\n| | episodes/min | s/step | start-up s | CPU s/episode | success | load |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    per_min: dict[str, float] = {}
    for name, rows in results.items():
        per_min[name] = statistics.median(60 * float(r["episodes"]) / float(r["wall_s"])
                                          for r in rows)  # type: ignore[arg-type]
        cpu = statistics.median(float(r["cpu_s"]) / max(1, int(r["episodes"]))  # type: ignore
                                for r in rows)
        successes = "/".join(f"{r['success']}" for r in rows)
        print(f"| {name} | {per_min[name]:.1f} | {_median(rows, 'step_s'):.3f} | "
              f"{_median(rows, 'startup_s'):.1f} | {cpu:.2f} | {successes} of 30 | "
              f"{', '.join(str(r['load']) for r in rows)} |")
    print("\nCPU s/episode by kind of process (medians over the repetitions):")
    for name, rows in results.items():
        kinds = sorted({k for r in rows for k in r["cpu_by_kind"]})  # type: ignore[attr-defined]
        parts = {k: statistics.median(r["cpu_by_kind"].get(k, 0.0)  # type: ignore[attr-defined]
                                      / max(1, int(r["episodes"]))  # type: ignore[arg-type]
                                      for r in rows) for k in kinds}
        print(f"  {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in
                                        sorted(parts.items(), key=lambda kv: -kv[1])))
    if "BrowserGym defaults" in per_min:
        for name, target in (("BrowserGym defaults", TARGET_DEFAULTS),
                             ("BrowserGym waits off", TARGET_NO_WAITS),
                             ("BrowserGym defaults, full chromium", TARGET_DEFAULTS),
                             ("BrowserGym waits off, full chromium", TARGET_NO_WAITS)):
            if name not in results:
                continue
            ratios = [60 * float(a["episodes"]) / float(a["wall_s"])  # type: ignore[arg-type]
                      / (60 * float(b["episodes"]) / float(b["wall_s"]))  # type: ignore
                      for a, b in zip(results["webtraj"], results[name], strict=True)]
            print(f"webtraj / {name}: median {statistics.median(ratios):.2f}x per "
                  f"repetition {', '.join(f'{r:.2f}' for r in ratios)} (target >= {target}x)")
    if args.startup:
        print(f"start-up: {json.dumps(startup)}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "startup": startup}, indent=1))


if __name__ == "__main__":
    main()
