"""Benchmark: what an image observation costs a step of the `llm` agent.

One Chromium page (a 110-row listing: links, buttons, inputs), observed and turned into the
agent's prompt two ways, interleaved (one of each in turn, so the machine's load moves both
alike):

- tree: `BrowserEnv.observe` without a screenshot, then the tree-only prompt;
- image: `BrowserEnv.observe` with the screenshot (PNG, as runs store it), the screenshot
  written to the trajectory folder (as an episode does), then the `tree+screenshot` prompt:
  the file read, downscaled to `--max-side` by `llm.images.fit_image`, base64-encoded.

Printed: the median ms per step of each, their ratio, the image step's extra ms, and the
median ms of the image part alone (read + downscale + encode) for PNG and JPEG screenshots;
with the load average.

    .venv/bin/python benchmarks/vision_step.py [--steps 50] [--max-side 1024]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.async_api import async_playwright

from webtraj.agents.prompt_builder import PromptBuilder, PromptOptions
from webtraj.browser.chromium import launch_chromium
from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.model.task import Task


def listing(rows: int = 110) -> bytes:
    body = "".join(
        f'<tr><td><a href="/item/{i}">Item {i}</a></td><td><span>Price {i}</span></td>'
        f'<td><button>Buy {i}</button></td><td><input aria-label="qty {i}"></td></tr>'
        for i in range(rows))
    return (f"<!doctype html><title>Listing</title><h1>Listing</h1>"
            f"<table>{body}</table>").encode()


PAGE = listing()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


async def measure(url: str, steps: int, max_side: int, folder: Path) -> dict[str, list[float]]:
    task = Task(task_id="bench", intent="Buy item 7.", start_url=url)
    text = PromptBuilder(PromptOptions())
    seen = {fmt: PromptBuilder(PromptOptions(observation="tree+screenshot",
                                             image_max_side=max_side))
            for fmt in ("png", "jpeg")}
    out: dict[str, list[float]] = {"tree": [], "image": [], "png part": [], "jpeg part": []}
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        envs = {"tree": BrowserEnv(browser, EnvConfig(screenshot=False)),
                "png": BrowserEnv(browser, EnvConfig(screenshot_format="png")),
                "jpeg": BrowserEnv(browser, EnvConfig(screenshot_format="jpeg"))}
        for env in envs.values():
            await env.reset(url)
        try:
            for i in range(steps + 2):  # the first two are warm-up
                t0 = time.perf_counter()
                obs = (await envs["tree"].observe()).to_observation()
                text.turns(task, obs, [])
                t_tree = time.perf_counter() - t0
                parts = {}
                t0 = time.perf_counter()
                for fmt in ("png", "jpeg"):
                    t1 = time.perf_counter()
                    raw = await envs[fmt].observe()
                    name = f"step-{i:03d}.{fmt}"
                    (folder / name).write_bytes(raw.screenshot_png or b"")
                    t2 = time.perf_counter()
                    seen[fmt].build(task, raw.to_observation(screenshot=name), [], files=folder)
                    parts[fmt] = time.perf_counter() - t2
                    if fmt == "png":
                        t_image = time.perf_counter() - t1
                if i >= 2:
                    out["tree"].append(t_tree * 1000)
                    out["image"].append(t_image * 1000)
                    out["png part"].append(parts["png"] * 1000)
                    out["jpeg part"].append(parts["jpeg"] * 1000)
        finally:
            for env in envs.values():
                await env.close()
            await browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--max-side", type=int, default=1024)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            times = asyncio.run(measure(url, args.steps, args.max_side, Path(tmp)))
    finally:
        server.shutdown()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"load average: {' '.join(os.getloadavg().__str__().strip('()').split(', '))}")
    print(f"{args.steps} steps each, interleaved; 1280x720 viewport, image longest side "
          f"{args.max_side}")
    print(f"tree-only step (observe + prompt):             {med['tree']:8.1f} ms (reference)")
    print(f"image step (observe + store + image prompt):   {med['image']:8.1f} ms "
          f"({med['image'] / med['tree']:.2f}x, +{med['image'] - med['tree']:.1f} ms)")
    print(f"  image part, PNG screenshot (read, downscale, encode): {med['png part']:6.1f} ms")
    print(f"  image part, JPEG screenshot:                          {med['jpeg part']:6.1f} ms")


if __name__ == "__main__":
    main()
