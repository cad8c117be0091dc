"""MiniWoB++ fixtures: the suite's real server on loopback and one Chromium per module."""

from __future__ import annotations

import os

import pytest
import pytest_asyncio

pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")
if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("Debian Chromium (/usr/bin/chromium) is not installed",
                allow_module_level=True)


@pytest.fixture(scope="session")
def miniwob_server():
    from webtraj.suites.miniwob.server import MiniWoBServer

    with MiniWoBServer() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    async with async_playwright() as pw:
        b = await launch_chromium(pw)
        yield b
        await b.close()
