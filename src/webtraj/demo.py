"""`make demo`: the main job on embedded defaults, offline.

Serves the sandbox sites, runs the replay agent (an upper bound: it follows each task's
reference actions) and the heuristic agent (a real baseline that needs no model) on the booking
suite, scores every episode with the tasks' evaluators, prints SR/CSR by site and difficulty,
writes report.html for each run, and stops the sites.

By default it runs a representative subset: tasks 1, 9 and 17 of every site (one easy, one
medium, one hard each; 15 tasks), which takes about a minute on two cores. `--full` runs
all 120 tasks (about five minutes on two cores)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from rich.console import Console

SITES = ("hotels", "rentals", "flights", "transit", "cars")
SUBSET = tuple(f"booking.{site}.{i:02d}" for site in SITES for i in (1, 9, 17))


def main(argv: list[str] | None = None) -> int:
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.model.suite_registry import default_suite
    from webtraj.report.html import write_report
    from webtraj.report.tables import outcome_table

    parser = argparse.ArgumentParser(prog="python -m webtraj.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="runs/demo", help="Folder for the two runs.")
    parser.add_argument("--full", action="store_true", help="All 120 tasks.")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--today", default=None, help="Sandbox 'today' (YYYY-MM-DD).")
    args = parser.parse_args(argv)
    console = Console()
    root = Path(args.out)
    ids = () if args.full else SUBSET
    for agent in ("replay", "heuristic"):
        out = root / agent
        if out.exists():
            shutil.rmtree(out)
        config = RunConfig(suite=default_suite(), agent=agent, workers=args.workers, task_ids=ids,
                           today=args.today)
        console.rule(f"{agent} agent on {'all' if args.full else len(ids)} booking tasks")
        with execute_run(config, out, command=f"make demo ({agent})") as store:
            console.print(outcome_table(store))
            report = write_report(store)
        console.print(f"run: {out}   report: {report}")
    console.print(f"Inspect with: .venv/bin/webtraj runs show {root / 'heuristic'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
