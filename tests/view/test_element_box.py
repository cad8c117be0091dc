"""The browser records the acted element's box as the screenshot shows it: a button placed
at a known spot of a real page in Chromium is measured there, scrolled or not."""

from __future__ import annotations

import pytest

from one_page_site import serve_page
from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.model import Action, ActionKind

pytestmark = pytest.mark.asyncio(loop_scope="session")

PAGE = b"""<!doctype html><html><body style="margin:0;height:3000px">
<button style="position:absolute;left:120px;top:210px;width:90px;height:30px">Go</button>
<button style="position:absolute;left:40px;top:1500px;width:60px;height:20px">Far</button>
</body></html>"""


@pytest.fixture
def page_url():
    with serve_page(PAGE) as base:
        yield base + "/"


def _id_of(axtree: str, name: str) -> str:
    line = next(ln for ln in axtree.splitlines() if f"[{name}]" in ln)
    return line.strip().split("]")[0].lstrip("[")


@pytest.mark.parametrize("full_page", [False, True])
async def test_box_is_where_the_element_is(chromium, page_url, full_page):
    env = BrowserEnv(chromium, EnvConfig(action_timeout_ms=15_000,
                                         full_page_screenshot=full_page))
    async with env:
        obs = await env.reset(page_url)
        result = await env.step(Action(kind=ActionKind.CLICK, element_id=_id_of(obs.axtree,
                                                                                "Go")))
        box = result.element_box
        assert box is not None
        assert (round(box.x), round(box.y), round(box.width), round(box.height)) == (
            120, 210, 90, 30)
        # Far down the page: a full-page screenshot shows it at its page position.
        obs = result.observation
        result = await env.step(Action(kind=ActionKind.CLICK, element_id=_id_of(obs.axtree,
                                                                                "Far")))
        assert result.element_box is not None and round(result.element_box.x) == 40
        if full_page:
            assert round(result.element_box.y) == 1500
        # A scroll action has no element and no box.
        result = await env.step(Action(kind=ActionKind.SCROLL, value="down"))
        assert result.element_box is None
