"""Issue 30 point 4: set-of-marks screenshots (ids drawn at their boxes) as an observation
option: off by default, stored beside the plain screenshot, drawn where the elements are."""

import io

import pytest
from PIL import Image

from webtraj.agents import AgentDecision
from webtraj.browser.config import EnvConfig
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.model import Action, Task

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_marks_are_drawn_at_the_boxes_and_off_by_default(make_env, site):
    plain = await make_env().reset(site.url("/pointer"))
    assert plain.som_png is None
    obs = await make_env(set_of_marks=True).reset(site.url("/pointer"))
    assert obs.som_png is not None and obs.som_png != obs.screenshot_png
    shot = Image.open(io.BytesIO(obs.screenshot_png)).convert("RGB")
    som = Image.open(io.BytesIO(obs.som_png)).convert("RGB")
    assert som.size == shot.size
    # The red pad (0, 0, 200x100) gets an outline: its bottom edge changes colour, its middle
    # stays red.
    pad = next(i for i, b in obs.element_boxes.items() if b == (0.0, 0.0, 200.0, 100.0))
    assert pad.startswith("n")
    assert shot.getpixel((100, 99)) == (255, 0, 0) != som.getpixel((100, 99))
    assert som.getpixel((100, 50)) == (255, 0, 0)


async def test_an_episode_stores_it_beside_the_screenshot(browser, site, tmp_path):
    class Stopper:
        name = "stopper"

        async def act(self, task, observation, history):
            return AgentDecision(action=Action(kind="stop", value=""))

    task = Task(task_id="som", intent="look", start_url=site.url("/pointer"))
    traj = await run_episode(browser, Stopper(), EpisodeSpec(task=task, agent="stopper"),
                             tmp_path, env_config=EnvConfig(set_of_marks=True))
    obs = traj.steps[0].observation
    assert (obs.screenshot, obs.som_screenshot) == ("step-000.png", "step-000.som.png")
    assert (tmp_path / "step-000.som.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
