"""Benchmark: `webtraj explore` on the booking sandbox with the persona explorer (no model).

Per N explored episodes (default 100): labeled pairs kept, distinct intents and constraint
combinations (by site and difficulty, as `generate.levels` defines difficulty), the share of
kept tasks whose replay scores CSR 1 under the oracle (target 100%), and labeled pairs per
minute of exploring + labeling with the given workers. The reference measured in the same run
is the replay of the kept tasks (episodes per minute of `webtraj run --agent replay`): the
ratio says what one synthesised pair costs against running one task.

    .venv/bin/python benchmarks/explore.py [--episodes 100] [--workers 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import Counter
from pathlib import Path

from webtraj.execute.explore import ExploreOptions, explore
from webtraj.model.task import Task


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--today", default="2026-11-28")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="webtraj-explore-bench-"))
    load_before = os.getloadavg()
    report = explore(ExploreOptions(episodes=args.episodes, workers=args.workers,
                                    seed=args.seed, today=args.today, embedder="ngram"), out)
    load_after = os.getloadavg()
    tasks = [Task.model_validate_json(line)
             for line in (out / "tasks.jsonl").read_bytes().splitlines()]
    combos = Counter((t.site, t.difficulty.value if t.difficulty else "-",
                      tuple(sorted(c.name for c in t.constraints))) for t in tasks)
    by_cell: Counter[tuple[str, str]] = Counter()
    for site, level, _names in combos:
        by_cell[(site, level)] += 1
    per100 = 100 / report.episodes
    minutes = (report.explore_s + report.label_s) / 60
    pairs_per_min = report.kept / minutes if minutes else 0.0
    replay_per_min = report.replayed / (report.replay_s / 60) if report.replay_s else 0.0
    print(f"episodes {report.episodes} (pruned {report.pruned}, errors "
          f"{report.episode_errors}), steps {report.steps}, prefixes labeled "
          f"{report.prefixes}, rejected {report.rejected}")
    print(f"per 100 episodes: kept {report.kept * per100:.1f}, distinct intents "
          f"{report.distinct_intents * per100:.1f}, constraint combinations "
          f"{report.distinct_combinations * per100:.1f}")
    print("kept by site/difficulty:", report.by_site_difficulty)
    print("distinct constraint combinations by site/difficulty:",
          {f"{s}/{lv}": n for (s, lv), n in sorted(by_cell.items())})
    share = report.replay_share
    print(f"replay CSR 1: {report.replay_csr1}/{report.replayed}"
          + (f" = {share:.1%}" if share is not None else "") + " (target 100%)")
    print(f"labeled pairs per minute (explore + label, {args.workers} workers): "
          f"{pairs_per_min:.2f}; reference: replay episodes per minute {replay_per_min:.2f}; "
          f"ratio {pairs_per_min / replay_per_min if replay_per_min else float('nan'):.2f}")
    print(f"explore {report.explore_s:.0f}s, label {report.label_s:.1f}s, replay "
          f"{report.replay_s:.0f}s; load average before {load_before[0]:.2f}, after "
          f"{load_after[0]:.2f}; cores {os.cpu_count()}; out {out}")


if __name__ == "__main__":
    main()
