"""Store benchmark: insert 1,000,000 step-level scores through the RunStore and query
the mean score per (site, evaluator); compare the insert with plain sqlite3 executemany of the
same step-level scores as one row each into a bare table (the floor). The store keeps a score's
per-step values together in its row (a JSON array that SQLite's json_each aggregates), so it
writes fewer rows than the floor. Prints absolute times and ratios."""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from webtraj.model import Observation, RunInfo, Score, Step, Task, Trajectory
from webtraj.model.redact import Redactor
from webtraj.store import RunStore

N_STEP_SCORES = 1_000_000
STEPS_PER_SCORE = 10
N_TRAJECTORIES = 25_000
EVALUATORS = ("csr-rule", "csr-llm", "csr-oracle", "csr-vlm")
SITES = ("hotels", "rentals", "flights", "buses", "cars")


def build_inputs(rng: random.Random) -> tuple[list[Trajectory], list[tuple[str, Score]]]:
    trajs = []
    for i in range(N_TRAJECTORIES):
        task = Task(task_id=f"t{i}", intent="book", site=SITES[i % len(SITES)],
                    difficulty=("easy", "medium", "hard")[i % 3])
        trajs.append(Trajectory(trajectory_id=f"t{i}__a__t0", task=task, agent="heuristic",
                                steps=(Step(index=0, observation=Observation(url="http://x/")),)))
    scores = []
    n_sets = N_STEP_SCORES // STEPS_PER_SCORE
    for j in range(n_sets):
        traj = trajs[j % N_TRAJECTORIES]
        values = tuple(rng.random() for _ in range(STEPS_PER_SCORE))
        scores.append((traj.trajectory_id, Score(evaluator=EVALUATORS[j // N_TRAJECTORIES],
                                                 value=values[-1], step_values=values)))
    return trajs, scores


def main() -> int:
    rng = random.Random(0)
    trajs, scores = build_inputs(rng)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = RunStore.create(root / "run", RunInfo(name="bench"),
                                redactor=Redactor(include_env=False))
        # Trajectories go straight to the index: this benchmark measures the score path.
        store.index.conn.execute("BEGIN")
        for t in trajs:
            store.index.upsert_trajectory(t)
        store.index.conn.execute("COMMIT")

        t0 = time.perf_counter()
        n = store.add_scores(scores)
        insert_s = time.perf_counter() - t0
        n_steps = sum(g.count for g in store.index.mean_step_score(("evaluator",)))

        t0 = time.perf_counter()
        groups = store.index.mean_step_score(("site", "evaluator"))
        query_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        curve = store.index.step_curve(("site", "evaluator"))
        curve_s = time.perf_counter() - t0
        # The same mean straight from the step values, to show the kept sums are exact.
        check = store.index.conn.execute(
            "SELECT AVG(j.value) FROM score_sets s, json_each(s.steps) j").fetchone()[0]
        total = sum(g.mean * g.count for g in groups) / sum(g.count for g in groups)
        assert abs(check - total) < 1e-9, (check, total)
        store.close()

        # Floor: the same step rows, plain executemany into a bare table, one transaction.
        rowid = {t.trajectory_id: k + 1 for k, t in enumerate(trajs)}
        rows = [(s_i, rowid[tid], sc.evaluator, i, v) for s_i, (tid, sc) in enumerate(scores)
                for i, v in enumerate(sc.step_values)]
        conn = sqlite3.connect(root / "floor.sqlite", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE s (score_set INTEGER, traj INTEGER, evaluator TEXT, "
                     "step INTEGER, value REAL)")
        t0 = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO s VALUES (?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        floor_s = time.perf_counter() - t0
        conn.close()

    ratio = insert_s / floor_s
    print(f"score sets: {n:,}  step-level scores: {n_steps:,}  groups: {len(groups)}")
    print(f"insert through RunStore.add_scores: {insert_s:.2f} s  (target <= 15 s)")
    print(f"floor (sqlite3 executemany, bare table): {floor_s:.2f} s")
    print(f"insert ratio vs floor: {ratio:.2f}x  (target <= 1.5x)")
    print(f"query mean per (site, evaluator): {query_s:.3f} s  (target <= 0.5 s)")
    print(f"query per-step curve per (site, evaluator), {len(curve)} points, reading every "
          f"step value: {curve_s:.3f} s")
    ok = insert_s <= 15 and query_s <= 0.5 and ratio <= 1.5
    print("targets met" if ok else "TARGETS MISSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
