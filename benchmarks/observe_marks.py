"""Benchmark: what marking elements without a role costs an observation.

`BrowserEnv.observe` (tree, screenshot, tabs, and with marking on, the marks script that gives
ids to click handlers, tabindex, canvas and svg shapes) on three pages, marking off and on in
the same run and interleaved (one observation each in turn), so that the machine's load moves
both alike. Printed: the median ms per observation for each, and the ratio on/off.

Pages: a 1,000-element listing (links, buttons, inputs: nothing to mark), a page of 400
click-handler divs (everything to mark), and MiniWoB++'s click-color (when the miniwob extra
is installed).

    .venv/bin/python benchmarks/observe_marks.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from playwright.async_api import async_playwright

from webtraj.browser.chromium import launch_chromium
from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv


def listing(rows: int = 110) -> str:
    body = "".join(
        f'<tr><td><a href="/item/{i}">Item {i}</a></td><td><span>Price {i}</span></td>'
        f'<td><button>Buy {i}</button></td><td><input aria-label="qty {i}"></td></tr>'
        for i in range(rows))
    return f"<!doctype html><title>Listing</title><h1>Listing</h1><table>{body}</table>"


def handlers(cells: int = 400) -> str:
    divs = "".join(f'<div class=c style="display:inline-block;width:20px;height:20px;'
                   f'background:rgb({i % 255},0,0)"></div>' for i in range(cells))
    return (f"<!doctype html><title>Cells</title><div id=grid>{divs}</div><script>"
            "document.querySelectorAll('.c').forEach(d => d.addEventListener('click',"
            " () => d.style.background = 'blue'));</script>")


PAGES = {"/listing": listing(), "/handlers": handlers()}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = PAGES.get(self.path, "").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


async def measure(urls: dict[str, str], repeats: int) -> None:
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            print(f"{'page':<14}{'marking off ms':>16}{'marking on ms':>16}{'on/off':>9}"
                  f"{'marked':>8}")
            for name, url in urls.items():
                envs = {on: BrowserEnv(browser, EnvConfig(mark_elements=on)) for on in
                        (False, True)}
                times: dict[bool, list[float]] = {False: [], True: []}
                marked = 0
                try:
                    for env in envs.values():
                        await env.reset(url)
                    for _ in range(repeats):
                        for on, env in envs.items():
                            t0 = time.perf_counter()
                            obs = await env.observe()
                            times[on].append((time.perf_counter() - t0) * 1000)
                            if on:
                                marked = sum(1 for i in obs.element_ids if i.startswith("n"))
                finally:
                    for env in envs.values():
                        await env.close()
                off, on = (statistics.median(times[k]) for k in (False, True))
                print(f"{name:<14}{off:>16.1f}{on:>16.1f}{on / off:>9.2f}{marked:>8}")
        finally:
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    urls = {"listing-1000": f"{base}/listing", "handlers-400": f"{base}/handlers"}
    with ExitStack() as stack:
        try:
            from webtraj.suites.miniwob.server import MiniWoBServer
            from webtraj.suites.miniwob.tasks import start_url

            mw = stack.enter_context(MiniWoBServer())
            urls["click-color"] = start_url(mw.base_url, "click-color", 0)
        except Exception as exc:  # the miniwob extra is optional
            print(f"(MiniWoB++ page left out: {exc})")
        asyncio.run(measure(urls, args.repeats))
    server.shutdown()


if __name__ == "__main__":
    main()
