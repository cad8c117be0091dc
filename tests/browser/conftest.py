"""Fixtures for browser tests: one Chromium for the session, a fresh context per test, and
real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).parent))
from browser_testsite import SiteServer  # noqa: E402

if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("Debian Chromium (/usr/bin/chromium) is not installed",
                allow_module_level=True)


@pytest.fixture(scope="session")
def site():
    with SiteServer() as s:
        yield s


@pytest.fixture(scope="session")
def other_site():
    """A second loopback origin that is never on the allowlist."""
    with SiteServer() as s:
        yield s


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser():
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    async with async_playwright() as pw:
        b = await launch_chromium(pw)
        yield b
        await b.close()


@pytest_asyncio.fixture(loop_scope="session")
async def make_env(browser, tmp_path):
    """Build environments for a test; every one is closed at the end even if the test fails."""
    from webtraj.browser.config import EnvConfig
    from webtraj.browser.env import BrowserEnv

    envs = []

    def make(**cfg):
        # Bounds against a hang, not patience: an outcome must not depend on the machine's
        # load (tests of a timeout set their own, short, bound).
        cfg.setdefault("action_timeout_ms", 10_000)
        cfg.setdefault("settle_timeout_ms", 15_000)
        env = BrowserEnv(browser, EnvConfig(**cfg))
        envs.append(env)
        return env

    yield make
    for env in envs:
        await env.close()
