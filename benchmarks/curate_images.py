"""Benchmark: `webtraj curate` of image records (observation=tree+screenshot) against the
same run curated text-only, on a synthetic run from benchmarks/curate_scale.py's generator
with a screenshot per step (1280x720 PNGs drawn from a pool of distinct pages, so some
steps share an image as real runs do on the same page).

Printed per mode, each in a fresh child process (median of interleaved repetitions):
seconds, seconds per 1,000 steps in, peak RSS of the process tree, dataset bytes (JSONL,
Parquet, images/) and bytes per record, and for images the number of image files against
image records (each distinct image is stored once). The ratio image / text is the cost of
the images: rebuilding each step's image (Pillow downscale to image_max_side and PNG
encode), hashing and writing it, and the Parquet image column.

    .venv/bin/python benchmarks/curate_images.py [--trajectories 300] [--pool 120]
        [--repeats 3] [--image-max-side 1024]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from curate_scale import generate, measure  # noqa: E402 - the sibling benchmark's parts


def _page(rng: random.Random) -> bytes:
    """A 1280x720 page-like PNG: a header bar, blocks of 'text' and buttons."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1280, 720), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 1280, 64), fill=(rng.randrange(256), 60, 120))
    for _ in range(40):
        x, y = rng.randrange(1200), rng.randrange(80, 700)
        d.rectangle((x, y, x + rng.randrange(40, 300), y + rng.randrange(8, 24)),
                    fill=tuple(rng.randrange(256) for _ in range(3)))
    for i in range(12):
        d.text((40 + (i % 3) * 400, 100 + (i // 3) * 150), f"Result {rng.randrange(999)}",
               fill=(20, 20, 20))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def add_screenshots(run: Path, pool: int, seed: int) -> int:
    """A screenshot file per step, named in the step's observation; returns the bytes."""
    rng = random.Random(seed)
    pages = [_page(rng) for _ in range(pool)]
    total = 0
    for folder in sorted((run / "trajectories").iterdir()):
        path = folder / "trajectory.json"
        traj = orjson.loads(path.read_bytes())
        for step in traj["steps"]:
            name = f"step-{step['index']:03d}.png"
            data = pages[rng.randrange(pool)]
            (folder / name).write_bytes(data)
            total += len(data)
            step["observation"]["screenshot"] = name
        path.write_bytes(orjson.dumps(traj, option=orjson.OPT_INDENT_2))
    return total


def child(root: str, out: str, mode: str, max_side: str) -> None:
    from webtraj.agents.prompt_builder import PromptOptions
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run

    prompt = (PromptOptions(observation="tree+screenshot", image_max_side=int(max_side))
              if mode == "images" else PromptOptions())
    curate_run(CurateRun(run=Path(root), out=Path(out), num_cpus=2,
                         settings=CurateSettings(judge="rule", prompt=prompt)))


def _size(out: Path) -> tuple[int, int, int, int]:
    """(dataset bytes, records, image files, image references)."""
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    records = refs = 0
    for split in ("train", "validation"):
        for line in (out / f"{split}.jsonl").read_bytes().splitlines():
            records += 1
            refs += len(orjson.loads(line).get("images", []))
    images = len(list((out / "images").iterdir())) if (out / "images").exists() else 0
    return total, records, images, refs


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(*sys.argv[2:6])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trajectories", type=int, default=300)
    ap.add_argument("--pool", type=int, default=120, help="Distinct page images.")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--image-max-side", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="curate-images-"))
    try:
        run = work / "run"
        n_steps = generate(run, a.trajectories, 6.2, 4096, a.seed)
        shots = add_screenshots(run, a.pool, a.seed)
        print(f"input: {a.trajectories} trajectories, {n_steps} steps, {shots / 1e6:.0f} MB "
              f"of screenshots ({a.pool} distinct 1280x720 pages); image_max_side "
              f"{a.image_max_side}; load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores", flush=True)
        times: dict[str, list[float]] = {"text": [], "images": []}
        peaks: dict[str, list[int]] = {"text": [], "images": []}
        sizes = {}
        for r in range(a.repeats):  # interleaved: text, images, text, images, ...
            for mode in ("text", "images"):
                out = work / f"out-{mode}-{r}"
                t, rss, _, _ = measure(["--child", str(run), str(out), mode,
                                        str(a.image_max_side)], __file__)
                times[mode].append(t)
                peaks[mode].append(rss)
                sizes[mode] = _size(out)
                shutil.rmtree(out)
                print(f"  {mode:6s} run {r + 1}: {t:6.1f} s, peak RSS {rss / 2**20:5.0f} MiB, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
        print(f"summary (median of {a.repeats}, {n_steps} steps in):")
        for mode in ("text", "images"):
            t = statistics.median(times[mode])
            total, records, images, refs = sizes[mode]
            extra = (f", {images} image files for {refs} image references" if refs else "")
            print(f"  {mode:6s} {t:6.1f} s  {1000 * t / n_steps:6.2f} s per 1,000 steps  "
                  f"peak RSS {statistics.median(peaks[mode]) / 2**20:5.0f} MiB  "
                  f"{total / 1e6:7.1f} MB out, {records} records, "
                  f"{total / max(records, 1) / 1e3:6.1f} KB per record{extra}")
        ratio = statistics.median(times["images"]) / statistics.median(times["text"])
        print(f"  images / text wall time: {ratio:.2f}x; load average now "
              f"{os.getloadavg()[0]:.1f} (a shared machine: wall times include other work)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
