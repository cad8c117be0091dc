"""Issue 30 point 6: a person's drag and clicks on elements without a role are recorded as
actions that replay to the same result: a demonstration of MiniWoB++ drag-box and
click-color, replayed in a fresh browser, gets the page's reward again."""

from __future__ import annotations

import asyncio

import pytest
from person import Person, record_session

from webtraj.agents.replay import ReplayAgent
from webtraj.evaluate.registry import create
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.model.action import ActionKind
from webtraj.store import RunStore

pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")


@pytest.fixture(scope="module")
def miniwob_server():
    from webtraj.suites.miniwob.server import MiniWoBServer

    with MiniWoBServer() as server:
        yield server


async def _drag_box(person: Person, page) -> None:
    small, large = page.locator("#draggableSmall"), page.locator("#draggableLarge")
    a, b = await small.bounding_box(), await large.bounding_box()

    async def dragging():
        await page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        await page.mouse.down()
        await page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
        await page.mouse.up()
    await person.act(page, dragging)
    await person.act(page, page.get_by_role("button", name="Submit").click)


async def _click_color(person: Person, page) -> None:
    want = await page.evaluate(
        "() => { const q = document.querySelector('#query .color, #query span');"
        " return q.tagName === 'DIV' ? getComputedStyle(q).backgroundColor : q.textContent; }")
    box = page.locator("#area .color").first
    for i in range(await page.locator("#area .color").count()):
        cand = page.locator("#area .color").nth(i)
        color, named = await cand.evaluate(
            "e => [getComputedStyle(e).backgroundColor, e.getAttribute('data-color')]")
        if want in (color, named):
            box = cand
            break
    await person.act(page, box.click)


def _record(tmp_path, url: str, intent_part: str, work) -> list:
    async def script(person: Person, page, browser) -> None:
        await work(person, page)
        await person.finish()

    with RunStore.open(record_session(tmp_path, url, f"{intent_part} demo", script)) as store:
        (traj,) = list(store.iter_trajectories())
    return list(traj.steps)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "work"), [("drag-box", _drag_box),
                                            ("click-color", _click_color)])
def test_recorded_demonstration_replays_to_the_reward(tmp_path, miniwob_server, name, work):
    from playwright.async_api import async_playwright as ap

    from webtraj.browser.chromium import launch_chromium
    from webtraj.suites.miniwob.tasks import build_tasks

    [task], failed = build_tasks(miniwob_server.base_url, [name], [0])
    assert failed == []
    steps = _record(tmp_path, task.start_url, name, work)
    actions = [s.action for s in steps if s.action is not None]
    errors = [s.error for s in steps if s.error]
    assert errors == [], errors
    if name == "drag-box":
        assert actions[0].kind is ActionKind.MOUSE_DRAG
    else:
        assert actions[0].kind is ActionKind.CLICK and actions[0].element_id.startswith("n")

    async def replay():
        async with ap() as pw:
            browser = await launch_chromium(pw)
            try:
                replayed = task.model_copy(update={"reference_actions": tuple(actions)})
                spec = EpisodeSpec(task=replayed, agent="replay", screenshots=False,
                                   max_steps=10, timeout_s=60)
                traj = await run_episode(browser, ReplayAgent(), spec, tmp_path / "replay")
                [score] = await create({"evaluator": "miniwob"}).evaluate(
                    traj, tmp_path / "replay")
                return score
            finally:
                await browser.close()
    score = asyncio.run(replay())
    assert score.details["raw_reward"] > 0, score
