"""The image really reaches the model (issue 37, point 3): on MiniWoB++ pointer tasks the llm
agent sends only the screenshot (no tree), the scripted model finds the target's colour in
the image it received and answers image-pixel points, and the page's own reward is > 0. A
stale or blank screenshot would show no target (or the wrong state) and score 0."""

from __future__ import annotations

import asyncio
import re

import pytest

from webtraj.agents.llm_agent import LLMAgent
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.evaluate.registry import create
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.llm import LLMClient, ModelSpec
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.vision import Blob, blobs, element_at, largest, request_image

pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")
pytestmark = pytest.mark.asyncio(loop_scope="module")

COLORS = {"red": (255, 0, 0), "blue": (0, 0, 255), "olive": (128, 128, 0),
          "lime": (0, 255, 0), "black": (0, 0, 0), "grey": (128, 128, 128),
          "purple": (128, 0, 128), "orange": (255, 165, 0), "yellow": (255, 255, 0),
          "cyan": (0, 255, 255), "pink": (255, 192, 203), "magenta": (255, 0, 255)}
# The MiniWoB++ task area below its instruction (CSS pixels), and the image's scale.
AREA = (0, 50, 160, 210)
MAX_SIDE = 1000
K = MAX_SIDE / 1280


def _area(img_top: float = AREA[1]) -> tuple[int, int, int, int]:
    return (0, round(img_top * K), round(AREA[2] * K), round(AREA[3] * K))


def _act(why: str, action: str) -> str:
    return f"{why} {ACTION_PHRASE} ```{action}```"


def _at(b: Blob) -> str:
    return f"[{b.cx:.0f}] [{b.cy:.0f}]"


def _vision_model(request) -> str:
    """Reads the task from the text and everything else from the image."""
    text = request.messages[-1]["content"][0]["text"]
    by_id = "TREE:" in text  # tree+som: found in the image, answered by the tree's id there
    task = re.search(r"^TASK: (.*)$", text, re.M).group(1)
    done = len(re.findall(r"^\d+\. ", text, re.M))
    img = request_image(request)
    if (m := re.search(r"Click on the (\w+) colored box", task)):
        if done:
            return _act("Clicked.", "stop []")
        box = largest(blobs(img, COLORS[m.group(1)], tolerance=8, region=_area()))
        if by_id:
            return _act(f"The {m.group(1)} box.", f"click [{element_at(text, box.cx, box.cy)}]")
        return _act(f"The {m.group(1)} box.", f"mouse_click {_at(box)}")
    if (m := re.search(r"grid coordinate \((-?\d),(-?\d)\)", task)):
        if done:
            return _act("Clicked.", "stop []")
        dots = blobs(img, (0, 0, 255), tolerance=60, region=_area())
        xs, ys = sorted({round(d.cx) for d in dots}), sorted({round(d.cy) for d in dots})
        x, y = xs[int(m.group(1)) + 2], ys[2 - int(m.group(2))]
        return _act("The dot at that coordinate.", f"mouse_click [{x}] [{y}]")
    if task.startswith("Drag the smaller box"):
        if done == 0:
            small = largest(blobs(img, COLORS["red"], region=_area()))
            large = largest(blobs(img, COLORS["blue"], region=_area()))
            return _act("Small red into large blue.", f"mouse_drag {_at(small)} {_at(large)}")
        if done == 1:
            button = largest(blobs(img, (239, 239, 239), tolerance=3, region=_area()))
            return _act("Submit.", f"mouse_click {_at(button)}")
        return _act("Submitted.", "stop []")
    raise AssertionError(f"no vision script for {task!r}")


@pytest.fixture(scope="module")
def miniwob_server():
    from webtraj.suites.miniwob.server import MiniWoBServer

    with MiniWoBServer() as server:
        yield server


async def _episode(browser, server, tmp_path, name: str, seed: int,
                   observation: str = "screenshot"):
    """The episode's trajectory and the page's own reward."""
    from webtraj.suites.miniwob.tasks import build_tasks

    [task], failed = await asyncio.to_thread(build_tasks, server.base_url, [name], [seed])
    assert failed == []
    options = PromptOptions(observation=observation, image_max_side=MAX_SIDE,
                            action_set="coords" if observation == "screenshot" else "both")
    workdir = tmp_path / f"{name}-{seed}"
    with ScriptedLLMServer(default=_vision_model) as llm:
        async with LLMClient(ModelSpec(base_url=llm.base_url, model="scripted")) as client:
            traj = await run_episode(browser, LLMAgent(client, options),
                                     EpisodeSpec(task=task, agent="llm", max_steps=5,
                                                 timeout_s=60), workdir)
        assert all(r.n_images == 1 for r in llm.requests)
    assert [s.error for s in traj.steps if s.error] == []
    [score] = await create({"evaluator": "miniwob"}).evaluate(traj, workdir)
    return traj, score.details["raw_reward"]


async def _reward(browser, server, tmp_path, name: str, seed: int) -> float:
    return (await _episode(browser, server, tmp_path, name, seed))[1]


async def test_a_vision_agent_earns_a_reward_on_click_color(browser, miniwob_server, tmp_path):
    assert await _reward(browser, miniwob_server, tmp_path, "click-color", 2) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), [
    ("click-color", 1), ("click-color", 3), ("click-color", 4), ("grid-coordinate", 0),
    ("grid-coordinate", 3), ("grid-coordinate", 5), ("drag-box", 0), ("drag-box", 1)])
async def test_a_vision_agent_earns_rewards_on_pointer_tasks(browser, miniwob_server,
                                                             tmp_path, name, seed):
    assert await _reward(browser, miniwob_server, tmp_path, name, seed) > 0


@pytest.mark.slow
async def test_a_set_of_marks_agent_answers_by_id(browser, miniwob_server, tmp_path):
    """tree+som: the target found in the image, answered with the id whose point (in the
    image's pixels) is there; the box has no role, so only marking gives it that id."""
    traj, reward = await _episode(browser, miniwob_server, tmp_path, "click-color", 2,
                                  observation="tree+som")
    assert reward > 0
    first = traj.steps[0]
    assert first.action.kind == "click" and first.action.element_id.startswith("n")
