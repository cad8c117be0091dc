"""Runs for viewer tests: two small runs written through the store API (see view_builders),
one real replay run of two sandbox tasks in Chromium (real screenshots and element boxes), and
a viewer serving them on loopback."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
from view_builders import XSS, alpha_items, beta_items, write_run  # noqa: E402

from factories import SANDBOX_TODAY  # noqa: E402

if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("Debian Chromium (/usr/bin/chromium) is not installed",
                allow_module_level=True)

REPLAY_TASKS = ("booking.hotels.06", "booking.rentals.07")


@pytest.fixture(scope="session")
def replay_run(tmp_path_factory) -> Path:
    """A real run: the replay agent on two sandbox tasks in Chromium."""
    from webtraj.execute.run import RunConfig, execute_run

    out = tmp_path_factory.mktemp("replay") / "runs" / "replay"
    config = RunConfig(suite="booking", agent="replay", today=SANDBOX_TODAY, workers=1,
                       task_ids=REPLAY_TASKS)
    with execute_run(config, out):
        pass
    return out


@pytest.fixture(scope="session")
def runs_root(replay_run: Path) -> Path:
    root = replay_run.parent
    write_run(root / "alpha", alpha_items(n_extra=60))
    write_run(root / "beta", beta_items())
    write_run(root / "evil", [], name="run " + XSS)
    (root / "evil").rename(root / ('evil<img src=x onerror="window.__xss=1">'))
    return root


@pytest.fixture(scope="session")
def viewer(runs_root: Path):
    from webtraj.view.server import Viewer

    with Viewer([runs_root]) as v:
        yield v


@pytest_asyncio.fixture(loop_scope="session", scope="session")
async def chromium():
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    async with async_playwright() as pw:
        b = await launch_chromium(pw)
        yield b
        await b.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(chromium):
    """A fresh page that fails the test on any dialog or on script from the data."""
    context = await chromium.new_context(viewport={"width": 1400, "height": 1000})
    pg = await context.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield pg
    xss = await pg.evaluate("window.__xss || 0")
    await context.close()
    assert not dialogs, f"a dialog opened: {dialogs}"
    assert not xss, "a payload from the data ran as script"
