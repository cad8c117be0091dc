"""What a vision prompt carries (issue 37, point 1): the observation options of PromptOptions,
the user turn as text + image_url parts in a fixed order, the image downscaled by the one rule
(llm.images.fit_image), and the same bytes whether built at run time or from the stored
trajectory folder; tree-only prompts keep their bytes."""

from __future__ import annotations

import base64
import hashlib
import io

import pytest
from PIL import Image

from webtraj.agents.prompt_builder import PromptBuilder, PromptOptions
from webtraj.agents.prompting import ObservationMode
from webtraj.agents.registry import LLMAgentOptions
from webtraj.model.action import Action, ActionKind, ActionSet
from webtraj.model.errors import InputError
from webtraj.model.task import Task
from webtraj.model.trajectory import ImageView, Observation, Step

TASK = Task(task_id="t", intent="Click the red square.", start_url="http://127.0.0.1:1/")


def _png(width: int, height: int, box: tuple[int, int, int, int] | None = None) -> bytes:
    img = Image.new("RGB", (width, height), (255, 255, 255))
    if box is not None:
        x, y, w, h = box
        img.paste((255, 0, 0), (x, y, x + w, y + h))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _obs(folder, png: bytes | None = None, **extra) -> Observation:
    if png is not None:
        (folder / "step-000.png").write_bytes(png)
    return Observation(url="http://127.0.0.1:1/", axtree="[3] [button] [Red]",
                       screenshot="step-000.png" if png is not None else None,
                       boxes={"3": (100.0, 200.0, 50.0, 40.0)}, **extra)


def _image_of(turn) -> bytes:
    (text, image) = turn["content"]
    assert text["type"] == "text" and image["type"] == "image_url"
    head, _, payload = image["image_url"]["url"].partition(";base64,")
    assert head == "data:image/png"
    return base64.b64decode(payload)


def test_tree_only_is_a_plain_string_and_its_options_keep_their_json(tmp_path):
    obs = _obs(tmp_path, _png(1280, 720))
    turns = PromptBuilder().turns(TASK, obs, [])
    assert all(isinstance(t["content"], str) for t in turns)
    # What a text-only dataset's stats.json and a run's settings record is unchanged.
    assert PromptOptions().model_dump() == {"history_window": 8, "tree_tokens": 6000,
                                            "few_shot": True, "action_set": ActionSet.IDS}
    assert "observation" in PromptOptions(observation="tree+screenshot").model_dump()


def test_screenshot_turn_is_text_then_a_downscaled_image(tmp_path):
    obs = _obs(tmp_path, _png(1280, 720, (100, 200, 50, 40)))
    builder = PromptBuilder(PromptOptions(observation="screenshot", action_set="coords",
                                          image_max_side=1000))
    prompt = builder.build(TASK, obs, [], files=tmp_path)
    user = prompt.turns[-1]
    sent = Image.open(io.BytesIO(_image_of(user)))
    assert sent.size == (1000, 563)  # thumbnail of 1280x720 into 1000 (562.5 rounded up)
    text = user["content"][0]["text"]
    assert "TREE:" not in text and "1000x563 pixels" in text
    assert prompt.view == ImageView(image="screenshot", width=1000, height=563,
                                    source_width=1280, source_height=720)
    # No worked example (it acts by id on a tree) and the system prompt speaks of images.
    assert [t["role"] for t in prompt.turns] == ["system", "user"]
    assert "pixels of the screenshot" in prompt.turns[0]["content"]
    # The same prompt rebuilt later from the folder: the same bytes.
    again = PromptBuilder(builder.options).turns(TASK, obs, [], files=tmp_path)
    assert again == prompt.turns


def test_tree_points_are_in_the_image_pixels_with_an_image(tmp_path):
    obs = _obs(tmp_path, _png(1280, 720))
    turns = PromptBuilder(PromptOptions(observation="tree+screenshot", action_set="both",
                                        image_max_side=640)).turns(TASK, obs, [],
                                                                   files=tmp_path)
    # The box (100, 200, 50, 40) CSS has its centre (125, 220); halved in a 640-wide image.
    assert "[3] [button] [Red] (at 62,110)" in turns[-1]["content"][0]["text"]


def test_set_of_marks_is_drawn_on_the_downscaled_image(tmp_path):
    obs = _obs(tmp_path, _png(1280, 720))
    opts = PromptOptions(observation="som", image_max_side=640)
    first = PromptBuilder(opts).turns(TASK, obs, [], files=tmp_path)
    img = Image.open(io.BytesIO(_image_of(first[-1]))).convert("RGB")
    assert img.size == (640, 360)
    # The outline of box 3 (CSS 100,200 50x40, halved) is drawn; outside it the page is white.
    assert img.getpixel((50, 110)) != (255, 255, 255)
    assert img.getpixel((300, 300)) == (255, 255, 255)
    again = PromptBuilder(opts).turns(TASK, obs, [], files=tmp_path)
    assert hashlib.sha256(_image_of(again[-1])).digest() == \
        hashlib.sha256(_image_of(first[-1])).digest()


def test_device_pixel_ratio_and_downscale_are_applied_once():
    view = ImageView(image="screenshot", width=1000, height=563, source_width=2560,
                     source_height=1440, device_pixel_ratio=2.0)
    # 2560 device pixels = 1280 CSS pixels across 1000 image pixels: 1.28 CSS per pixel.
    assert view.to_viewport(500, 281.5) == (640.0, 360.0)
    act = Action(kind=ActionKind.MOUSE_DRAG, x=10, y=20, to_x=500, to_y=281.5)
    moved = view.mapped(act)
    assert (moved.x, moved.y, moved.to_x, moved.to_y) == (12.8, 25.58, 640.0, 360.0)
    seen = view.model_copy(update={"points": ImageView.points_of(act)})
    assert seen.seen(moved) == act
    # A key press has no point: unchanged.
    key = Action(kind=ActionKind.PRESS, value="Enter")
    assert view.mapped(key) is key


def test_history_lists_the_models_own_points(tmp_path):
    obs = _obs(tmp_path, _png(1280, 720))
    view = ImageView(image="screenshot", width=640, height=360, source_width=1280,
                     source_height=720, points=((62.0, 110.0),))
    step = Step(index=0, observation=obs, view=view,
                action=Action(kind=ActionKind.MOUSE_CLICK, x=124.0, y=220.0))
    turns = PromptBuilder(PromptOptions(observation="screenshot", action_set="coords",
                                        image_max_side=640)).turns(TASK, obs, [step],
                                                                   files=tmp_path)
    assert "1. mouse_click [62] [110]" in turns[-1]["content"][0]["text"]


def test_a_step_without_screenshot_says_so_and_bad_options_are_refused(tmp_path):
    obs = _obs(tmp_path)
    prompt = PromptBuilder(PromptOptions(observation="tree+som")).build(TASK, obs, [],
                                                                        files=tmp_path)
    (part,) = prompt.turns[-1]["content"]
    assert "none at this step" in part["text"] and prompt.view is None
    with pytest.raises(ValueError, match="shows no element ids"):
        LLMAgentOptions(observation="screenshot")
    with pytest.raises(InputError, match="outside the trajectory folder"):
        PromptBuilder(PromptOptions(observation="som")).turns(
            TASK, obs.model_copy(update={"screenshot": "../x.png"}), [], files=tmp_path)
    assert {m.value for m in ObservationMode} == {"tree", "screenshot", "som",
                                                  "tree+screenshot", "tree+som"}


def test_a_run_refuses_an_image_observation_without_screenshots(tmp_path):
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"task_id": "t", "intent": "x", "start_url": "http://127.0.0.1:9/"}\n')
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "run", "--tasks", str(tasks), "--agent", "llm", "--agent-option",
        "observation=tree+screenshot", "--no-screenshots",
        "--llm", "base_url=http://127.0.0.1:9/v1,model=x", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "cannot run with --no-screenshots" in " ".join(result.output.split())
    assert not out.exists()
    bad = CliRunner().invoke(app, [
        "run", "--tasks", str(tasks), "--agent", "llm", "--agent-option", "observation=video",
        "--llm", "base_url=http://127.0.0.1:9/v1,model=x", "--out", str(out)])
    assert bad.exit_code == 2 and "option observation" in bad.output
