"""The viewer shows what the model saw (issue 37, point 6), clicked through in Chromium: the
prompt view shows the image sent, rebuilt from the stored screenshot with the same bytes the
scripted model received; the step view marks where the coordinate action landed (on the
target the model pointed at) and says what the model answered in the image's pixels."""

from __future__ import annotations

import httpx
import pytest
from targets_page import PAGE, TARGETS, vision_model

from one_page_site import serve_page
from webtraj.agents.llm_agent import LLMAgent
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.execute.episode import EpisodeSpec, episode_artifacts, run_episode
from webtraj.llm import LLMClient, ModelSpec
from webtraj.model.run import RunInfo
from webtraj.model.run_settings import RunConfig
from webtraj.model.task import Task
from webtraj.store import RunStore
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.vision import request_images
from webtraj.view.server import Viewer

pytestmark = pytest.mark.asyncio(loop_scope="module")
OPTIONS = {"observation": "screenshot", "action_set": "coords", "image_max_side": 1000}


async def test_the_viewer_shows_the_image_sent_and_where_the_click_landed(browser, tmp_path):
    with serve_page(PAGE) as url, ScriptedLLMServer(default=vision_model) as server:
        task = Task(task_id="targets", intent="Click every square.", start_url=url + "/")
        async with LLMClient(ModelSpec(base_url=server.base_url, model="scripted")) as client:
            workdir = tmp_path / "work"
            traj = await run_episode(browser, LLMAgent(client, PromptOptions(**OPTIONS)),
                                     EpisodeSpec(task=task, agent="llm", max_steps=3,
                                                 timeout_s=60), workdir)
        sent = [request_images(r)[0] for r in server.requests]
    root = tmp_path / "runs"
    info = RunInfo(name="vision", settings=RunConfig(agent="llm", agent_options=OPTIONS))
    with RunStore.create(root / "vision", info) as store:
        store.add_trajectory(traj, episode_artifacts(workdir))
    tid = traj.trajectory_id
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    try:
        with Viewer([root]) as viewer, httpx.Client(base_url=viewer.url) as http:
            # The image the viewer shows is the one the model got, byte for byte, each step.
            for i in range(2):
                got = http.get("/prompt-image", params={"r": "vision", "t": tid, "i": i})
                assert got.status_code == 200 and got.content == sent[i]
            await page.goto(f"{viewer.url}trajectory?r=vision&t={tid}")
            step = page.locator("#step-0")
            assert "The model answered" in await step.locator(".vision-point").inner_text()
            # The marker lands on the red target of the rendered screenshot.
            shot = await step.locator(".shot img").bounding_box()
            mark = await step.locator("circle.point").bounding_box()
            k = shot["width"] / 1280
            cx = (mark["x"] + mark["width"] / 2 - shot["x"]) / k
            cy = (mark["y"] + mark["height"] / 2 - shot["y"]) / k
            x, y, w, h = TARGETS[0][2]
            assert x <= cx <= x + w and y <= cy <= y + h, (cx, cy)
            await step.locator("a.prompt-link").click()
            await page.wait_for_url("**/prompt?*")
            image = page.locator("#sent-image")
            await image.wait_for()
            size = await image.evaluate("i => i.decode().then(() => [i.naturalWidth, "
                                        "i.naturalHeight])")
            assert size == [1000, 563]
            caption = await page.locator("figure.sent-image figcaption").inner_text()
            assert "1000×563" in caption and "1280×720" in caption
    finally:
        await context.close()
