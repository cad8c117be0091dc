"""Vision-agent fixtures: one Chromium per module."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
        pytest.skip("Debian Chromium (/usr/bin/chromium) is not installed")
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    async with async_playwright() as pw:
        b = await launch_chromium(pw)
        yield b
        await b.close()
