"""Benchmark: how webtraj scales out (issue: architecture for scale).

(1) Episodes per minute of `webtraj run` (replay agent, the same 15 sandbox tasks as
    `rollout.py` part c) with 1 and 2 local workers and with 2 workers on a two-node Ray
    cluster started here (`ray start --head` + a second `ray start --address` node, each with
    one CPU and its own temp dir). Both nodes are on this machine, so the cluster is
    *simulated*: its figure shows the cost of the Ray path (artifacts through the object store),
    not the gain of a second machine.
(2) Curation of a synthetic run (default 150,000 trajectories, ~1M steps; see
    `curate_scale.py`, which generates it and measures time, the ratio to a bare read-and-write
    of the same files, and the peak RSS/PSS of the process tree) with the local executor and
    with Ray, in the same run.

    .venv/bin/python benchmarks/scale.py [--parts episodes,curation] [--trajectories N]
        [--keep DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def episodes() -> None:
    from rollout import C_TASKS, _episodes_per_minute
    from webtraj.testing.ray_cluster import LocalRayCluster

    with tempfile.TemporaryDirectory() as tmp:
        one = _episodes_per_minute(1, f"{tmp}/w1")
        two = _episodes_per_minute(2, f"{tmp}/w2")
        with LocalRayCluster(nodes=2, root=f"{tmp}/ray") as cluster:
            ray = _episodes_per_minute(2, f"{tmp}/ray2", executor="ray",
                                       ray_address=cluster.address)
    print(f"(1) {len(C_TASKS)} replay episodes (steady episodes/min; with start-up)")
    print(f"    1 local worker:           {one[0]:6.1f}  ({one[1]:6.1f})")
    print(f"    2 local workers:          {two[0]:6.1f}  ({two[1]:6.1f})  "
          f"{two[0] / one[0]:.2f}x one worker")
    print(f"    2 workers, 2-node Ray:    {ray[0]:6.1f}  ({ray[1]:6.1f})  "
          f"{ray[0] / two[0]:.2f}x the 2 local workers (simulated cluster: one machine)")


def curation(trajectories: int, keep: Path | None) -> None:
    print("(2) curation: floor, local, Ray, ratios, peak RSS", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = keep or Path(tmp) / "run"
        subprocess.run([sys.executable, str(HERE / "curate_scale.py"), "--trajectories",
                        str(trajectories), "--executor", "local,ray", "--compare",
                        "--keep", str(run)], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="episodes,curation")
    ap.add_argument("--trajectories", type=int, default=150_000)
    ap.add_argument("--keep", type=Path, help="Generate the curation run here (or reuse it).")
    a = ap.parse_args()
    parts = {p.strip() for p in a.parts.split(",") if p.strip()}
    if "episodes" in parts:
        episodes()
    if "curation" in parts:
        curation(a.trajectories, a.keep)


if __name__ == "__main__":
    main()
