"""Benchmark: `webtraj view` on a run of 100,000 trajectories.

Input: a run written by RunStore (run.json, index.sqlite) with a few hundred real trajectory
folders; the other rows are index rows only (trajectories + one `constraints:rule` score each,
with per-step values and typed constraint checks), bulk-inserted with the same columns
RunIndex writes. Sites, difficulties, CSR curves and errors are random (seeded).

Measured (median of several requests over HTTP to a real uvicorn on loopback, after one
warm-up): the run page (tables by site x difficulty and by constraint, CSR-by-step plot,
first page of the list), the same with its summary tables read again from the index's
summary tables (schema 2) on every request instead of cached, a filtered page (site +
success), a search in intents and answers (trigram index), and a trajectory page.
Reference: a bare SQLite query returning the same rows of the list (or the
trajectory's row and scores), timed in the same process. Target: each page < 300 ms.

    .venv/bin/python benchmarks/viewer.py [--trajectories 100000] [--folders 300]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from webtraj.model import (
    Action,
    ActionKind,
    ConstraintCheck,
    Observation,
    RunInfo,
    Score,
    Step,
    StepCheck,
    Task,
    Trajectory,
)
from webtraj.store import RunStore
from webtraj.store.queries import IndexReader
from webtraj.view import stats
from webtraj.view.server import Viewer
from webtraj.view.stats import run_stats

SITES = ("hotels", "flights", "cars", "rentals", "transit")
LEVELS = ("easy", "medium", "hard")
NAMES = ("location", "start_date", "end_date", "adults", "pool")


def _score(rng: random.Random, n_obs: int) -> Score:
    met_at = {n: rng.randint(0, n_obs + 2) for n in NAMES}
    checks = tuple(tuple(StepCheck(name=n, matching=t >= met_at[n], observed=t)
                         for n in NAMES) for t in range(n_obs))
    values = tuple(sum(c.matching for c in row) / len(NAMES) for row in checks)
    final = checks[-1]
    return Score(evaluator="constraints:rule", value=values[-1], step_values=values,
                 step_checks=checks,
                 constraints=tuple(ConstraintCheck(name=c.name, ground_truth="x",
                                                   matching=c.matching) for c in final))


def _traj(i: int, rng: random.Random, n_steps: int) -> Trajectory:
    site = rng.choice(SITES)
    task = Task(task_id=f"{site}-{i:06d}", site=site, difficulty=rng.choice(LEVELS),
                intent=f"Book a {site} option number {i} for {rng.randint(1, 5)} adults",
                start_url="http://127.0.0.1:8001/")
    steps = tuple(Step(index=t, observation=Observation(
        url=f"http://127.0.0.1:8001/p{t}", axtree="\n".join(
            f"[{k}] [button] [Item {k}]" for k in range(60))),
        action=Action(kind=ActionKind.CLICK, element_id=str(t % 60)), reasoning=f"step {t}")
        for t in range(n_steps))
    return Trajectory(trajectory_id=f"{task.task_id}__bench__t0", task=task, agent="bench",
                      steps=steps, answer=f"answer {i}",
                      final_observation=Observation(url="http://127.0.0.1:8001/end"))


def build(root: Path, n: int, folders: int) -> None:
    rng = random.Random(0)
    with RunStore.create(root, RunInfo(name="bench")) as store:
        for i in range(folders):
            traj = _traj(i, rng, rng.randint(3, 12))
            store.add_trajectory(traj)
            store.add_scores([(traj.trajectory_id, _score(rng, len(traj.steps) + 1))])
        conn = store.index.conn
        rows = []
        for i in range(folders, n):
            site = rng.choice(SITES)
            rows.append((f"{site}-{i:06d}__bench__t0", f"{site}-{i:06d}", site,
                         rng.choice(LEVELS), "bench", 0, rng.randint(3, 12),
                         "endpoint down" if rng.random() < 0.02 else None, "stop", time.time(),
                         f"Book a {site} option number {i} for {rng.randint(1, 5)} adults",
                         f"answer {i}"))
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO trajectories (trajectory_id, task_id, site, difficulty, "
                         "agent, trial, n_steps, error, termination, added_at, intent, answer) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        ids = conn.execute("SELECT id, n_steps FROM trajectories WHERE id > ?",
                           (folders,)).fetchall()
        store.index.add_scores((rowid, _score(rng, steps + 1)) for rowid, steps in ids)


def _median_ms(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trajectories", type=int, default=100_000)
    ap.add_argument("--folders", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "runs" / "bench"
        t0 = time.perf_counter()
        build(root, args.trajectories, args.folders)
        print(f"built {args.trajectories} index rows, {args.folders} folders in "
              f"{time.perf_counter() - t0:.1f} s")
        conn = sqlite3.connect(f"file:{root / 'index.sqlite'}?mode=ro", uri=True)
        tid = "hotels-000007__bench__t0"
        tid = conn.execute("SELECT trajectory_id FROM trajectories WHERE id = 8").fetchone()[0]
        cols = "trajectory_id, task_id, site, difficulty, n_steps, error, intent, answer"
        bare = {
            "run page": lambda: (conn.execute("SELECT COUNT(*) FROM trajectories").fetchone(),
                                 conn.execute(f"SELECT {cols} FROM trajectories ORDER BY id "
                                              "LIMIT 50").fetchall()),
            "run page, tables not cached": lambda: (
                conn.execute("SELECT COUNT(*) FROM trajectories").fetchone(),
                conn.execute(f"SELECT {cols} FROM trajectories ORDER BY id "
                             "LIMIT 50").fetchall()),
            "filtered page": lambda: (conn.execute(
                "SELECT COUNT(*) FROM trajectories WHERE site = 'hotels'").fetchone(),
                conn.execute(f"SELECT {cols} FROM trajectories WHERE site = 'hotels' "
                             "ORDER BY id LIMIT 50").fetchall()),
            "search": lambda: conn.execute(
                f"SELECT {cols} FROM trajectories WHERE intent LIKE '%number 4242 %' "
                "OR answer LIKE '%number 4242 %' LIMIT 50").fetchall(),
            "trajectory page": lambda: (conn.execute(
                f"SELECT {cols} FROM trajectories WHERE trajectory_id = ?", (tid,)).fetchall(),
                conn.execute("SELECT s.* FROM score_sets s JOIN trajectories t ON t.id = s.traj "
                             "WHERE t.trajectory_id = ?", (tid,)).fetchall()),
        }
        pages = {
            "run page": {"r": "bench"},
            "run page, tables not cached": {"r": "bench"},
            "filtered page": {"r": "bench", "site": "hotels", "success": "no"},
            "search": {"r": "bench", "q": "number 4242 "},
            "trajectory page": None,
        }
        t0 = time.perf_counter()
        with IndexReader.open(root) as ro:
            run_stats(root, ro)
        print(f"summary tables from the index (cached per run until its index changes): "
              f"{(time.perf_counter() - t0) * 1000:.0f} ms")
        with Viewer([root.parent]) as v, httpx.Client(base_url=v.url, timeout=60) as http:
            def get(name: str):
                if name.endswith("not cached"):
                    stats._cache.clear()  # the summary tables are read again from the index
                if pages[name] is None:
                    r = http.get("/trajectory", params={"r": "bench", "t": tid})
                else:
                    r = http.get("/run", params=pages[name])
                r.raise_for_status()
            print(f"{'page':<28} {'server ms':>10} {'bare SQLite ms':>15} {'ratio':>8}  target")
            ok = True
            for name in pages:
                served = _median_ms(lambda name=name: get(name), args.repeat)
                ref = _median_ms(bare[name], args.repeat)
                good = served < 300
                ok = ok and good
                print(f"{name:<28} {served:>10.1f} {ref:>15.2f} {served / ref:>8.0f}x  "
                      f"{'< 300 ms ok' if good else 'OVER 300 ms'}")
        conn.close()
        print("all pages under 300 ms" if ok else "SOME PAGES OVER 300 ms")


if __name__ == "__main__":
    main()
