"""A local worker process's entry point: its browser starts while its modules import.

A worker needs Playwright's driver and Chromium (other processes) and webtraj's episode
code (a second or so of imports, mostly agents and the model client). Done one after the
other, they add up before the first episode; here the driver and the browser start first,
and the episode modules import in a thread meanwhile (`worker.serve` takes the launch). This
module imports nothing heavy itself: it is what the child process unpickles first."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from webtraj.runtime.children import die_with_parent


def main(parent_pid: int, conn: Any, config_json: bytes, downloads_path: str) -> None:
    """A worker that the kernel kills if the run dies (its browser goes with its driver);
    `downloads_path` is where its browser keeps downloads in flight
    (`WorkerConfig.downloads_in_flight`)."""
    die_with_parent(parent_pid)
    asyncio.run(_main(conn, config_json, downloads_path))


async def _launch(downloads_path: str) -> tuple[Any, Any]:
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    pw = await async_playwright().start()
    try:
        return pw, await launch_chromium(pw, downloads_path=downloads_path)
    except BaseException:
        await pw.stop()
        raise


async def _main(conn: Any, config_json: bytes, downloads_path: str) -> None:
    import playwright.async_api  # noqa: F401 - before the thread imports the rest with it

    launch = asyncio.ensure_future(_launch(downloads_path))
    worker = await asyncio.to_thread(importlib.import_module, "webtraj.execute.worker")
    await worker.serve(conn, config_json, launched=launch)
