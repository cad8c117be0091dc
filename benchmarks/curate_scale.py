"""Benchmark: `webtraj curate` on a synthetic run at the paper's scale (the constraint-based
evaluation paper: 150k
trajectories, ~1M steps) with accessibility trees of ~4 KB per step.

Input: a real run directory in the format RunStore writes (one `trajectory.json` per
trajectory, indented JSON, plus `index.sqlite` with one `constraints:rule` score per
trajectory carrying per-step CSR values and per-step constraint matches). It is written
here directly with orjson and SQLite (the same bytes RunStore would write, without
validating 150k trajectories twice) so the input is what curation reads in practice.
Curves are random walks: ~10% of trajectories end at CSR 1, about half have a usable
prefix, a few observations are unscored, some tasks have no constraints.

Measured, each in a fresh child process:
- floor: read every trajectory.json and write the same bytes to one file (bare I/O);
- curate: the full pipeline (scores from SQLite, JSON parsing and validation, prefix,
  relabeling, chat rendering, JSONL + Parquet + stats), executor local or ray.
The files are read once untimed first (warm page cache for every measurement), and the floor
is the fastest of --floor-repeats passes.
Printed: seconds, input steps/s, input MB/s, ratio to the floor, CPU seconds, and peak
memory of the process tree sampled from /proc every 0.2 s: RSS summed over the driver and
any Ray processes (an upper bound: shared pages count once per process) and PSS (shared
pages split among the processes mapping them).
Targets: wall time <= 3x the floor, peak RSS of the process tree <= 1.5 GiB, with
each executor. The floor is measured once; each executor's run gets the load average beside
it (on a shared machine wall times include other work).

    .venv/bin/python benchmarks/curate_scale.py [--trajectories 150000]
        [--executor local,ray] [--compare] [--chunk-size 256]
        [--keep DIR]   # reuse/keep the run (~6 GB)
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

NAMES = ("location", "start_date", "end_date", "adults", "pool", "property_type",
         "made_selection")
ROLES = ("link", "button", "StaticText", "textbox", "heading", "listitem", "checkbox",
         "combobox", "img", "generic")
WORDS = ("hotel", "Lisbon", "room", "view", "price", "night", "free", "cancel", "pool",
         "spa", "breakfast", "parking", "guest", "review", "rating", "map", "filter", "sort",
         "date", "search", "deal", "city", "center", "suite", "deluxe", "family", "terrace",
         "garden", "ocean", "beach", "Wi-Fi", "pets", "cabin", "apartment", "villa")


def _tree(rng: random.Random, target: int) -> str:
    lines, size, i = [], 0, 1
    while size < target:
        depth = rng.randint(0, 3)
        words = " ".join(rng.choices(WORDS, k=rng.randint(1, 6)))
        props = rng.choice(("", f" [url=/hotel/{rng.randint(1, 999)}]", " [checked=false]",
                            " [level=2]", ""))
        line = "\t" * depth + f"[{i}] [{rng.choice(ROLES)}] [{words}]{props}"
        lines.append(line)
        size += len(line) + 1
        i += rng.randint(1, 3)
    return "\n".join(lines)


def _curve(rng: random.Random, n_obs: int, n_c: int) -> list[set[str] | None]:
    """Which constraints are met at each observation. Shaped after the paper's yield (seed
    003: ~11% fully successful, ~43% with a usable prefix, ~30% of steps kept): about half
    the agents make no progress; the others add an unmet constraint with a probability that
    grows with their skill, and sometimes lose one. 1% of observations are unscored."""
    met: set[str] = set()
    names = list(NAMES[:n_c])
    stuck = rng.random() < 0.45
    skill = rng.random()
    out: list[set[str] | None] = []
    for t in range(n_obs):
        if t > 0 and not stuck and rng.random() < 0.9 * skill + 0.05:
            unmet = [n for n in names if n not in met]
            if unmet:
                met.add(rng.choice(unmet))
        if met and rng.random() < 0.10:
            met.discard(rng.choice(sorted(met)))
        out.append(None if rng.random() < 0.01 else set(met))
    return out


def generate(root: Path, n_traj: int, mean_steps: float, tree_bytes: int, seed: int) -> int:
    """Write the run; returns the number of steps."""
    rng = random.Random(seed)
    trees = [_tree(rng, int(tree_bytes * rng.uniform(0.6, 1.4))) for _ in range(4096)]
    (root / "trajectories").mkdir(parents=True)
    (root / "run.json").write_bytes(orjson.dumps({
        "schema_version": 1, "run_id": "bench", "name": "curate-scale", "created_at": 0.0,
        "webtraj_version": "0.1.0", "python_version": "3.11", "command": "synthetic",
        "config": {}, "timings": {}, "usage": {}}, option=orjson.OPT_INDENT_2))
    from webtraj.store.migrations import SCHEMA

    conn = sqlite3.connect(root / "index.sqlite")
    conn.executescript(SCHEMA)
    conn.execute("PRAGMA journal_mode=WAL")
    total_steps = 0
    traj_rows, score_rows = [], []
    for k in range(n_traj):
        task_id = f"bench.hotels.{k % 20000:05d}"
        n_steps = max(1, min(30, int(rng.expovariate(1 / mean_steps)) + 1))
        n_c = 0 if rng.random() < 0.01 else rng.randint(3, 7)
        constraints = [{"name": n, "value": v, "type": ty} for n, v, ty in (
            ("location", "Lisbon", "location"), ("start_date", "March 05, 2026", "date"),
            ("end_date", "March 09, 2026", "date"), ("adults", 3, "number"),
            ("pool", True, "boolean"), ("property_type", "cabin", "enum"),
            ("made_selection", True, "boolean"))[:n_c]]
        steps = []
        for i in range(n_steps):
            last = i == n_steps - 1 and rng.random() < 0.6
            action = ({"kind": "stop", "value": "", "press_enter": True} if last else
                      {"kind": "click", "element_id": str(rng.randint(1, 300)),
                       "press_enter": True})
            steps.append({"index": i, "observation": {
                "url": f"http://127.0.0.1:8001/s?page={i}&q={k}", "title": "StayFinder",
                "tabs": [{"index": 0, "url": "http://127.0.0.1:8001/", "title": "StayFinder",
                          "active": True}],
                "axtree": trees[rng.randrange(len(trees))], "structured_data": []},
                "action": action, "reasoning": f"I click on result {i} to move on.",
                "started_at": 0.0, "duration_s": 0.1})
        tid = f"{task_id}__bench__t{k // 20000}"
        traj = {"schema_version": 1, "trajectory_id": tid, "task": {
            "schema_version": 1, "task_id": task_id, "intent": f"Find a cabin ({task_id})",
            "site": "hotels", "start_url": "http://127.0.0.1:8001/",
            "constraints": constraints, "evaluators": [], "metadata": {}},
            "agent": "bench", "trial": k // 20000, "steps": steps,
            "final_observation": {"url": "http://127.0.0.1:8001/final", "title": "",
                                  "tabs": [], "axtree": trees[rng.randrange(len(trees))],
                                  "structured_data": []},
            "termination": "stop", "metadata": {}}
        folder = root / "trajectories" / tid
        folder.mkdir()
        (folder / "trajectory.json").write_bytes(orjson.dumps(traj, option=orjson.OPT_INDENT_2))
        total_steps += n_steps
        traj_rows.append((k + 1, tid, task_id, "hotels", None, "bench", k // 20000, n_steps,
                          None, "stop", 0.0, f"Find a cabin ({task_id})", None))
        if n_c:
            met = _curve(rng, n_steps + 1, n_c)
            names = NAMES[:n_c]
            values = [None if m is None else len(m) / n_c for m in met]
            checks = [[{"name": n, "matching": None if m is None else n in m} for n in names]
                      for m in met]
            final = values[-1]
            body = {"evaluator": "constraints:rule", "value": final,
                    "reason": None if final is not None else "judge could not decide",
                    "step_checks": checks}
            body = {k2: v for k2, v in body.items() if v is not None}
            score_rows.append((k + 1, "constraints:rule", final, body.get("reason"), 0, 0,
                               orjson.dumps(values).decode(), None, None,
                               orjson.dumps(body).decode(), 0.0))
        if len(traj_rows) >= 5000 or k == n_traj - 1:
            conn.executemany("INSERT INTO trajectories (id, trajectory_id, task_id, site, "
                             "difficulty, agent, trial, n_steps, error, termination, added_at, "
                             "intent, answer) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", traj_rows)
            conn.executemany("INSERT INTO score_sets (traj, evaluator, value, reason, error, "
                             "has_constraints, steps, step_sum, step_count, body, added_at) "
                             "VALUES (?,?,?,?,?,?,?,?,?,?,?)", score_rows)
            conn.commit()
            traj_rows, score_rows = [], []
    conn.close()
    return total_steps


def input_bytes(root: Path) -> int:
    return sum(f.stat().st_size for f in (root / "trajectories").glob("*/trajectory.json"))


# --- measured in a child process -----------------------------------------------------------
def child_floor(root: str, out: str) -> None:
    src = Path(root) / "trajectories"
    with open(out, "wb") as fh:
        for entry in sorted(os.scandir(src), key=lambda e: e.name):
            fh.write(Path(entry.path, "trajectory.json").read_bytes())


def child_curate(root: str, out: str, executor: str, chunk_size: str = "256") -> None:
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run

    job = CurateRun(run=Path(root), out=Path(out), settings=CurateSettings(judge="rule"),
                    executor=executor, chunk_size=int(chunk_size), num_cpus=2)
    res = curate_run(job)
    s = res.stats
    print(f"  trajectories {s.trajectories}, steps in {s.steps_in}, fully successful "
          f"{s.fully_successful}, usable prefix {s.with_usable_prefix}, relabeled "
          f"{s.relabeled}, steps kept {s.steps_kept}, unscored observations "
          f"{s.unscored_observations}, dropped {dict(sorted(s.dropped.items()))}", flush=True)


def _pss(pid: int) -> int:
    """Proportional set size (bytes): shared pages split among the processes that map them,
    so a tree's sum does not count Ray's shared memory and libraries several times."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _tree_sample(root_pid: int, cpu: dict[int, float]) -> tuple[int, int]:
    """Summed RSS and PSS (bytes) of a process and its descendants, from /proc; records
    each process's CPU seconds (utime + stime) in `cpu`."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    ticks: dict[int, float] = {}
    tck = os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{d}/statm") as fh:
                pages = int(fh.read().split()[1])
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append(int(d))
        rss[int(d)] = pages * page
        ticks[int(d)] = (int(fields[11]) + int(fields[12])) / tck
    total = pss = 0
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        pss += _pss(pid)
        cpu[pid] = max(cpu.get(pid, 0.0), ticks.get(pid, 0.0))
        stack.extend(children.get(pid, []))
    return total, pss


def measure(args: list[str], script: str = __file__) -> tuple[float, int, int, float]:
    """Wall seconds, peak summed RSS and PSS of the process tree, CPU seconds of the tree,
    of `script` run with `args` in a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, script, *args])
    peak = peak_pss = 0
    cpu: dict[int, float] = {}
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        while not done.is_set():
            rss, pss = _tree_sample(proc.pid, cpu)
            peak, peak_pss = max(peak, rss), max(peak_pss, pss)
            time.sleep(0.2)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    done.set()
    th.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"child {args[0]} failed with exit code {proc.returncode}")
    # The child's rusage includes the descendants it reaped (its worker processes); Ray's
    # processes may not be reaped by it, so they count as last sampled: whichever is larger.
    own = usage.ru_utime + usage.ru_stime
    return elapsed, peak, peak_pss, max(own, sum(cpu.values()))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child-floor":
        return child_floor(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "--child-curate":
        return child_curate(*sys.argv[2:6])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trajectories", type=int, default=150_000)
    ap.add_argument("--mean-steps", type=float, default=6.2,
                    help="Mean of the (exponential) step count; ~6.7 steps result.")
    ap.add_argument("--tree-bytes", type=int, default=4096)
    ap.add_argument("--executor", default="local,ray",
                    help="Comma-separated executors to measure (local, ray), in order.")
    ap.add_argument("--compare", action="store_true",
                    help="Check that every executor writes the bytes the first one wrote.")
    ap.add_argument("--chunk-size", type=int, default=256,
                    help="Trajectories per chunk (webtraj curate's default is 64).")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--floor-repeats", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="Generate the run here (or reuse it).")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="curate-scale-"))
    run = a.keep or work / "run"
    try:
        if not (run / "index.sqlite").exists():
            t0 = time.perf_counter()
            n_steps = generate(run, a.trajectories, a.mean_steps, a.tree_bytes, a.seed)
            print(f"generated {a.trajectories} trajectories, {n_steps} steps in "
                  f"{time.perf_counter() - t0:.0f} s")
        with sqlite3.connect(run / "index.sqlite") as conn:
            n_traj, n_steps = conn.execute(
                "SELECT COUNT(*), SUM(n_steps) FROM trajectories").fetchone()
        size = input_bytes(run)
        mb = size / 1e6
        trees = n_steps and size / (n_steps + n_traj)
        print(f"input: {n_traj} trajectories, {n_steps} steps, {mb:,.0f} MB of trajectory.json"
              f" (~{trees / 1024:.1f} KiB per observation incl. JSON), executor {a.executor}")
        # The first pass brings the files into the page cache (untimed), so the floor and
        # every executor read the same warm files; the floor is the fastest of its repeats
        # (on a shared host a single pass varied 14-27 s), which is the strictest reference.
        measure(["--child-floor", str(run), os.devnull])
        floors = []
        for _ in range(a.floor_repeats):
            floors.append(measure(["--child-floor", str(run), str(work / "floor.bin")]))
            (work / "floor.bin").unlink(missing_ok=True)
        floor_t, floor_rss, _, floor_cpu = min(floors)
        spread = ", ".join(f"{f[0]:.1f}" for f in floors)
        print(f"floor  (read + write the same bytes): {floor_t:7.1f} s  "
              f"{n_steps / floor_t:9,.0f} steps/s  {mb / floor_t:7.1f} MB/s  "
              f"peak RSS {floor_rss / 2**20:6.0f} MiB  CPU {floor_cpu:6.1f} s  "
              f"(fastest of {spread} s)", flush=True)
        results = {}
        for executor in a.executor.split(","):
            out = work / f"out-{executor}"
            print(f"curate, executor {executor}:", flush=True)
            load_before = os.getloadavg()[0]
            cur_t, cur_rss, cur_pss, cur_cpu = measure(["--child-curate", str(run), str(out),
                                                        executor, str(a.chunk_size)])
            load = (load_before + os.getloadavg()[0]) / 2
            out_mb = sum(f.stat().st_size for f in out.iterdir()) / 1e6
            results[executor] = (cur_t, cur_rss, cur_cpu)
            print(f"  {cur_t:7.1f} s  {n_steps / cur_t:9,.0f} steps/s  {mb / cur_t:7.1f} MB/s  "
                  f"{out_mb:,.0f} MB out  peak RSS {cur_rss / 2**20:6.0f} MiB (PSS "
                  f"{cur_pss / 2**20:.0f} MiB)  CPU {cur_cpu:6.1f} s (process tree)  "
                  f"load average {load:.1f} on {os.cpu_count()} cores", flush=True)
            if a.compare and executor != a.executor.split(",")[0]:
                first = work / f"out-{a.executor.split(',')[0]}"
                same = all((first / f.name).read_bytes() == f.read_bytes()
                           for f in out.iterdir())
                print(f"  same bytes as {first.name}: {same}")
        print(f"summary ({n_traj} trajectories; targets: <= 3.0x the floor's wall time, "
              "<= 1536 MiB peak RSS):")
        print(f"  floor {floor_t:7.1f} s")
        for executor, (cur_t, cur_rss, cur_cpu) in results.items():
            ratio = cur_t / floor_t
            print(f"  {executor:5s} {cur_t:7.1f} s  {ratio:5.1f}x floor "
                  f"({'ok' if ratio <= 3 else 'MISSED'})  peak RSS {cur_rss / 2**20:5.0f} MiB "
                  f"({'ok' if cur_rss <= 1.5 * 2**30 else 'MISSED'})  CPU {cur_cpu:6.1f} s")
        if {"local", "ray"} <= set(results):
            print(f"  ray / local wall: {results['ray'][0] / results['local'][0]:.2f}x")
        print("  (shared machine: wall times include other work; see the load averages)")
    finally:
        shutil.rmtree(work, ignore_errors=True)  # a --keep run lives outside `work`


if __name__ == "__main__":
    main()
