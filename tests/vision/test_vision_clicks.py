"""Coordinates mean what the model saw (issue 37, points 2 and 3): the llm agent sends a
downscaled screenshot (a non-integer factor; with a device pixel ratio of 1.5 too), a scripted
model finds each coloured target in the image it received and answers the image-pixel centre,
and every click lands on its target in real Chromium; the step records the mapping and the
model's own points."""

from __future__ import annotations

import pytest
from targets_page import PAGE, TARGETS, vision_model

from one_page_site import serve_page
from webtraj.agents.llm_agent import LLMAgent
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.browser.config import EnvConfig
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.llm import LLMClient, ModelSpec
from webtraj.model.task import Task
from webtraj.testing import ScriptedLLMServer

pytestmark = pytest.mark.asyncio(loop_scope="module")


# At a device scale factor of 1.5 Chromium's capture (CDP, speed mode) still gives 1280 pixels:
# the ratio is measured on the image, so the mapping holds whatever the capture does.
@pytest.mark.parametrize("dpr", [1.0, pytest.param(1.5, marks=pytest.mark.slow)])
async def test_clicks_land_on_the_targets_the_model_saw(browser, tmp_path, dpr):
    options = PromptOptions(observation="screenshot", action_set="coords",
                            image_max_side=1000)
    with serve_page(PAGE) as url, ScriptedLLMServer(default=vision_model) as server:
        task = Task(task_id="targets", intent="Click every square.", start_url=url + "/")
        async with LLMClient(ModelSpec(base_url=server.base_url, model="scripted")) as client:
            traj = await run_episode(
                browser, LLMAgent(client, options),
                EpisodeSpec(task=task, agent="llm", max_steps=len(TARGETS) + 2, timeout_s=60),
                tmp_path / "traj", env_config=EnvConfig(device_scale_factor=dpr))
        sizes = {(r.messages[-1]["content"][1]["type"]) for r in server.requests}
    assert sizes == {"image_url"}
    assert traj.error is None and traj.stopped, (traj.error, [s.error for s in traj.steps])
    final = traj.final_observation.axtree
    assert "hits: red green blue magenta orange" in final, final
    assert "miss" not in final
    clicks = traj.steps[:len(TARGETS)]
    for step, (_, _, (x, y, w, h)) in zip(clicks, TARGETS, strict=True):
        view = step.view
        # The 1280 CSS pixels of the viewport (in the screenshot's own pixels: its device
        # pixel ratio) seen as 1000 image pixels: 1.28 CSS pixels per image pixel.
        assert view.width == 1000 and view.source_width == round(1280 * view.device_pixel_ratio)
        assert view.scale[0] == pytest.approx(1.28)
        assert (step.observation.device_pixel_ratio or 1.0) == view.device_pixel_ratio
        (px, py), = view.points
        assert (step.action.x, step.action.y) == view.to_viewport(px, py)
        assert x <= step.action.x <= x + w and y <= step.action.y <= y + h
