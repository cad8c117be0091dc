"""Benchmark: rollout costs of the browser layer, one function per part.

(a) observation extraction (accessibility tree + viewport screenshot) on a 1,000-element page:
    median <= 100 ms; printed with raw Playwright taking the same snapshot and screenshot in
    the same run, since absolute figures move with the machine's load.
(b) per-step harness overhead: `BrowserEnv.step` (action, settle, tree, screenshot, tabs)
    against raw Playwright doing the same click, a CDP `Accessibility.getFullAXTree` and a
    screenshot, measured interleaved in the same run: ratio <= 1.2. Also printed: the ratio
    against raw Playwright using the same tree source as the harness (the aria snapshot), which
    is the harness's own overhead.

(c) episodes per minute of `webtraj run` (replay agent, sandbox sites) with 1 and 2 workers:
    target >= 1.7x.
(e) scoring beside the rollout: episodes per minute (replay, 2 workers) with a constraint LLM
    judge whose model answers after 200 ms (scripted server on loopback) against no judge:
    target >= 0.9x.
(d) persisting each step as it is taken (the step journal: the Step as JSON, appended to the
    episode's scratch folder): its cost per real step against the step itself, target <= 5%.

Parts are registered in PARTS; a part takes the shared Bench (browser + loopback site) and
returns its figures as a dict.

    .venv/bin/python benchmarks/rollout.py [--parts a,b] [--repeats 40]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from playwright.async_api import Browser, async_playwright

from webtraj.browser.chromium import launch_chromium
from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.model import Action, ActionKind

TARGET_A_MS = 100.0
TARGET_B_RATIO = 1.2


def thousand_element_page(rows: int = 110) -> str:
    """About 1,000 elements: a listing table with links, text, buttons and inputs."""
    body = "".join(
        f'<tr><td><a href="/item/{i}">Item {i}</a></td><td><span>Price {i}</span></td>'
        f'<td><button>Buy {i}</button></td><td><input aria-label="qty {i}"></td></tr>'
        for i in range(rows))
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><title>Listing</title>"
            "</head><body><h1>Listing</h1><button id=go onclick=\"document.getElementById('out')"
            ".textContent = 'clicked ' + (++window.n || (window.n = 1))\">Go</button>"
            f"<p id=out>ready</p><table>{body}</table></body></html>")


class _Site:
    """The page on 127.0.0.1, served from a thread."""

    def __init__(self, html: str) -> None:
        data = html.encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/listing"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Bench:
    browser: Browser
    url: str
    repeats: int
    config: EnvConfig


def _ms(samples: list[float]) -> dict[str, float]:
    xs = sorted(samples)
    return {"median": statistics.median(xs) * 1000, "p90": xs[int(0.9 * (len(xs) - 1))] * 1000,
            "min": xs[0] * 1000}


async def _timed(fn: Callable[[], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    await fn()
    return time.perf_counter() - t0


async def part_a(bench: Bench) -> dict[str, float]:
    """Observation extraction (tree + screenshot) on the 1,000-element page, with raw
    Playwright taking the same aria snapshot and screenshot as the in-run reference."""
    env = BrowserEnv(bench.browser, bench.config)
    raw_ctx = await bench.browser.new_context(
        viewport={"width": bench.config.viewport_width, "height": bench.config.viewport_height})
    try:
        obs = await env.reset(bench.url)
        page = await env.tabs.current()
        raw = await raw_ctx.new_page()
        await raw.goto(bench.url)
        elements = await page.evaluate("document.querySelectorAll('*').length")

        async def raw_observe() -> None:
            await raw.aria_snapshot(mode="ai")
            await raw.screenshot(type="png")

        for _ in range(3):
            await env.observe()
            await raw_observe()
        full, ref, shot = [], [], []
        for _ in range(bench.repeats):
            full.append(await _timed(env.observe))
            ref.append(await _timed(raw_observe))
            shot.append(await _timed(lambda: page.screenshot(type="png")))
    finally:
        await env.close()
        await raw_ctx.close()
    f, r, s = _ms(full), _ms(ref), _ms(shot)
    print(f"(a) observation extraction, {elements} elements, "
          f"{len(obs.axtree.splitlines())} tree lines, {bench.repeats} repeats")
    print(f"    observe (tree + screenshot + tabs): median {f['median']:.1f} ms, "
          f"p90 {f['p90']:.1f} ms, min {f['min']:.1f} ms")
    print(f"    raw aria snapshot + screenshot:     median {r['median']:.1f} ms  "
          f"ratio {f['median'] / r['median']:.2f}")
    print(f"    screenshot alone:                   median {s['median']:.1f} ms")
    verdict = "PASS" if f["median"] <= TARGET_A_MS else "FAIL"
    print(f"    target median <= {TARGET_A_MS:.0f} ms: {verdict}")
    return {"a_observe_median_ms": f["median"], "a_raw_median_ms": r["median"],
            "a_screenshot_median_ms": s["median"], "a_elements": float(elements)}


async def part_b(bench: Bench) -> dict[str, float]:
    """Per-step harness cost against raw Playwright doing the same work, interleaved."""
    env = BrowserEnv(bench.browser, bench.config)
    raw_ctx = await bench.browser.new_context(
        viewport={"width": bench.config.viewport_width, "height": bench.config.viewport_height})
    try:
        obs = await env.reset(bench.url)
        raw = await raw_ctx.new_page()
        await raw.goto(bench.url)
        cdp = await raw_ctx.new_cdp_session(raw)
        # The agent's way: the id shown in the tree (the button keeps it: its name is fixed).
        go = re.search(r"^\[(\d+)\] \[button\] \[Go\]", obs.axtree, re.MULTILINE)
        assert go, "no Go button in the tree"
        click = Action(kind=ActionKind.CLICK, element_id=go.group(1))

        async def harness_step() -> None:
            result = await env.step(click)
            assert result.error is None, result.error

        async def raw_cdp_step() -> None:
            await raw.locator("#go").click()
            await cdp.send("Accessibility.getFullAXTree")
            await raw.screenshot(type="png")

        async def raw_aria_step() -> None:
            await raw.locator("#go").click()
            await raw.aria_snapshot(mode="ai")
            await raw.screenshot(type="png")

        for fn in (harness_step, raw_cdp_step, raw_aria_step):
            for _ in range(3):
                await fn()
        h, rc, ra = [], [], []
        for _ in range(bench.repeats):
            h.append(await _timed(harness_step))
            rc.append(await _timed(raw_cdp_step))
            ra.append(await _timed(raw_aria_step))
    finally:
        await env.close()
        await raw_ctx.close()
    hm, rcm, ram = _ms(h)["median"], _ms(rc)["median"], _ms(ra)["median"]
    ratio, own = hm / rcm, hm / ram
    print(f"(b) per-step cost (click + settle + tree + screenshot), {bench.repeats} repeats")
    print(f"    harness BrowserEnv.step:                median {hm:.1f} ms")
    print(f"    raw Playwright, CDP getFullAXTree:      median {rcm:.1f} ms  ratio {ratio:.2f}")
    print(f"    raw Playwright, same aria snapshot:     median {ram:.1f} ms  ratio {own:.2f}")
    verdict = "PASS" if ratio <= TARGET_B_RATIO else "FAIL"
    print(f"    target ratio (vs CDP raw) <= {TARGET_B_RATIO}: {verdict}")
    return {"b_harness_median_ms": hm, "b_raw_cdp_median_ms": rcm, "b_raw_aria_median_ms": ram,
            "b_ratio": ratio, "b_ratio_same_tree": own}


C_TASKS = tuple(f"booking.{site}.{i:02d}" for site in ("hotels", "rentals", "flights",
                                                          "transit", "cars") for i in (2, 10, 18))


def _episodes_per_minute(workers: int, out: str, **settings: object) -> tuple[float, float]:
    """Replay on the sandbox suite through `execute_run`: (steady-state episodes/minute
    between the first and the last finished episode, overall episodes/minute including
    worker and browser start-up)."""
    from webtraj.execute.run import RunConfig, execute_run

    done: list[float] = []
    t0 = time.perf_counter()
    config = RunConfig(suite="booking", agent="replay", today="2026-01-15", workers=workers,
                       task_ids=C_TASKS, **settings)
    with execute_run(config, out, on_episode=lambda ev: done.append(time.perf_counter())):
        pass
    total = time.perf_counter() - t0
    steady = (len(done) - 1) / (done[-1] - done[0]) * 60 if len(done) > 1 else float("nan")
    return steady, len(done) / total * 60


async def part_c(bench: Bench) -> dict[str, float]:
    """Episodes per minute with 1 and 2 workers (one browser each): target >= 1.7x."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        one = await asyncio.to_thread(_episodes_per_minute, 1, f"{tmp}/w1")
        two = await asyncio.to_thread(_episodes_per_minute, 2, f"{tmp}/w2")
    ratio = two[0] / one[0]
    print(f"(c) {len(C_TASKS)} replay episodes on the sandbox sites")
    print(f"    1 worker : {one[0]:6.1f} episodes/min steady, {one[1]:6.1f} with start-up")
    print(f"    2 workers: {two[0]:6.1f} episodes/min steady, {two[1]:6.1f} with start-up")
    print(f"    speed-up 2 vs 1 workers: {ratio:.2f}x (target >= 1.7x); with start-up "
          f"{two[1] / one[1]:.2f}x")
    return {"c_epm_1": one[0], "c_epm_2": two[0], "c_ratio": ratio}


async def part_d(bench: Bench) -> dict[str, float]:
    """The step journal's cost on real steps of the 1,000-element page: target <= 5%."""
    import tempfile
    from pathlib import Path

    from webtraj.execute.episode import StepJournal
    from webtraj.model import Step

    env = BrowserEnv(bench.browser, bench.config)
    steps, writes = [], []
    try:
        obs = await env.reset(bench.url)
        go = re.search(r"^\[(\d+)\] \[button\] \[Go\]", obs.axtree, re.MULTILINE)
        assert go, "no Go button in the tree"
        click = Action(kind=ActionKind.CLICK, element_id=go.group(1))
        with tempfile.TemporaryDirectory() as tmp:
            journal = StepJournal(Path(tmp))
            observation = obs.to_observation(screenshot="step-000.png")
            for t in range(bench.repeats):
                t0 = time.perf_counter()
                result = await env.step(click)
                steps.append(time.perf_counter() - t0)
                step = Step(index=t, observation=observation, action=click,
                            reasoning="benchmark", duration_s=steps[-1])
                t0 = time.perf_counter()
                journal.append(step)
                writes.append(time.perf_counter() - t0)
                observation = result.observation.to_observation(
                    screenshot=f"step-{t + 1:03d}.png")
    finally:
        await env.close()
    sm, wm = _ms(steps)["median"], _ms(writes)["median"]
    share = wm / sm
    print(f"(d) step journal, {bench.repeats} real steps ({len(observation.axtree):,} chars of "
          "tree each)")
    print(f"    step median {sm:.1f} ms; journal append median {wm:.2f} ms = "
          f"{share * 100:.2f}% of a step (target <= 5%: {'PASS' if share <= 0.05 else 'FAIL'})")
    return {"d_step_median_ms": sm, "d_journal_median_ms": wm, "d_share": share}


async def part_e(bench: Bench) -> dict[str, float]:
    """Episodes per minute with a 200 ms LLM judge scoring every episode vs no extra judge,
    alternated (no judge, judge, no judge, judge): target >= 0.9x."""
    import tempfile

    from webtraj.testing import ScriptedLLMServer

    judge = {"evaluator": "constraints", "judge": "llm", "steps": "all"}
    runs: dict[str, list[float]] = {"plain": [], "judge": []}
    with ScriptedLLMServer(default='{"constraints": []}', delay=0.2) as server, \
            tempfile.TemporaryDirectory() as tmp:
        spec = f"base_url={server.base_url},model=scripted"
        for i, kind in enumerate(("plain", "judge") * 2):
            extra = {"evaluators": (judge,), "llm": spec, "no_cache": True} if kind == "judge" \
                else {}
            steady, _ = await asyncio.to_thread(_episodes_per_minute, 2, f"{tmp}/{i}", **extra)
            runs[kind].append(steady)
        calls = server.request_count
    plain, judged = statistics.median(runs["plain"]), statistics.median(runs["judge"])
    ratio = judged / plain
    print(f"(e) {len(C_TASKS)} replay episodes, 2 workers, alternated x2; judge model 200 ms "
          f"per call ({calls} calls)")
    print(f"    no extra judge: {plain:6.1f} episodes/min;  with the LLM judge: {judged:6.1f}")
    print(f"    ratio {ratio:.2f}x (target >= 0.9x: {'PASS' if ratio >= 0.9 else 'FAIL'})")
    return {"e_epm_plain": plain, "e_epm_judge": judged, "e_ratio": ratio}


PARTS: dict[str, Callable[[Bench], Awaitable[dict[str, float]]]] = {
    "a": part_a,
    "b": part_b,
    "c": part_c,
    "d": part_d,
    "e": part_e,
}


async def run(parts: list[str], repeats: int) -> dict[str, float]:
    site = _Site(thousand_element_page())
    figures: dict[str, float] = {}
    try:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            bench = Bench(browser=browser, url=site.url, repeats=repeats,
                          config=EnvConfig(allowed_origins=(site.url.rsplit("/", 1)[0],)))
            try:
                for name in parts:
                    figures.update(await PARTS[name](bench))
            finally:
                await browser.close()
    finally:
        site.close()
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"comma-separated parts to run ({', '.join(PARTS)})")
    ap.add_argument("--repeats", type=int, default=40)
    args = ap.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}; known: {', '.join(PARTS)}")
    asyncio.run(run(parts, args.repeats))


if __name__ == "__main__":
    main()
