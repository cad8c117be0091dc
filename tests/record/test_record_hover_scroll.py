"""Issue 30 point 6: a person resting the mouse on a hover menu and turning the wheel over an
inner scrollable list (not the page) is recorded as `hover [id]` (or `mouse_move [x] [y]` on
text the page answers from a script) and `scroll [down] [x] [y]`;
replayed in a fresh browser, the demonstration reaches the same end state (the item only the
hover menu shows was used, the list scrolled, the page did not)."""

from __future__ import annotations

import asyncio

import pytest
from person import Person, record_session
from playwright.async_api import async_playwright

from one_page_site import serve_page
from webtraj.agents.replay import ReplayAgent
from webtraj.browser.chromium import launch_chromium
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.model.action import ActionKind
from webtraj.model.task import Task
from webtraj.store import RunStore

ITEMS = "".join(f"<li>Item {i}</li>" for i in range(1, 21))
PAGE = f"""<!doctype html><html lang=en><head><meta charset=utf-8><title>Inbox</title><style>
body {{ margin: 0; font: 16px sans-serif }}
.menu {{ position: relative; display: inline-block; margin: 10px }}
.menu .items {{ display: none; position: absolute; top: 100%; left: 0; background: #fff;
               border: 1px solid #888 }}
.menu:hover .items {{ display: block }}
#list {{ height: 120px; width: 300px; overflow-y: auto; border: 1px solid #888; margin: 40px 10px }}
#list li {{ height: 30px }}
</style></head><body>
<div class=menu><button>Actions</button><div class=items>
<button onclick="document.getElementById('status').textContent = 'Archived'">Archive</button>
</div></div>
<p id=status>Nothing done</p>
<p><span onmouseenter="document.getElementById('support').hidden = false">Help</span>
<button id=support hidden onclick="document.getElementById('help').textContent =
  'Support contacted'">Contact support</button></p>
<p id=help>No help asked</p>
<ul id=list onscroll="document.getElementById('where').textContent =
  this.scrollTop > 0 ? 'List scrolled' : 'List at top'">{ITEMS}</ul>
<p id=where>List at top</p>
<p id=page>Page at top</p>
<div style="height: 3000px"></div>
<script>window.addEventListener('scroll', () => {{
  document.getElementById('page').textContent = scrollY > 0 ? 'Page scrolled' : 'Page at top';
}});</script>
</body></html>"""



@pytest.fixture
def url():
    with serve_page(PAGE.encode()) as base:
        yield base + "/"

def _end_state(axtree: str) -> tuple[bool, bool, bool, bool]:
    return ("Archived" in axtree, "Support contacted" in axtree, "List scrolled" in axtree,
            "Page scrolled" in axtree)


def test_hover_and_inner_scroll_replay_to_the_same_state(tmp_path, url):
    async def script(person: Person, page, browser) -> None:
        await person.act(page, page.get_by_role("button", name="Actions").hover)
        await person.act(page, page.get_by_role("button", name="Archive").click)
        # A hover the page answers from a script (mouseenter), on text with no role.
        await person.act(page, page.get_by_text("Help", exact=True).hover)
        await person.act(page, page.get_by_role("button", name="Contact support").click)
        box = await page.locator("#list").bounding_box()

        async def scrolling():
            await page.mouse.move(box["x"] + 100, box["y"] + 60)
            for _ in range(3):
                await page.mouse.wheel(0, 60)
        await person.act(page, scrolling)
        await person.finish()

    out = record_session(tmp_path, url, "Archive and browse the inbox", script)
    with RunStore.open(out) as store:
        (recorded,) = list(store.iter_trajectories())
    actions = [s.action for s in recorded.steps if s.action is not None]
    assert [s.error for s in recorded.steps if s.error] == []
    kinds = [a.kind for a in actions]
    assert kinds[:5] == [ActionKind.HOVER, ActionKind.CLICK, ActionKind.MOUSE_MOVE,
                         ActionKind.CLICK, ActionKind.SCROLL], [str(a) for a in actions]
    assert set(kinds[5:]) <= {ActionKind.STOP}, [str(a) for a in actions]
    assert actions[4].value == "down" and actions[4].point is not None, actions[4]
    assert recorded.final_observation is not None
    assert _end_state(recorded.final_observation.axtree) == (True, True, True, False)

    async def replay():
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            try:
                task = Task(task_id="inbox", intent="Archive and browse the inbox",
                            start_url=url, reference_actions=tuple(actions))
                spec = EpisodeSpec(task=task, agent="replay", screenshots=False,
                                   max_steps=10, timeout_s=60)
                return await run_episode(browser, ReplayAgent(), spec, tmp_path / "replay")
            finally:
                await browser.close()
    replayed = asyncio.run(replay())
    assert [s.error for s in replayed.steps if s.error] == []
    assert replayed.final_observation is not None
    assert _end_state(replayed.final_observation.axtree) == (True, True, True, False)
