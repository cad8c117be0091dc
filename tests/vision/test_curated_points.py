"""A curated record's answer at a point is in the pixels of the image its prompt carries
(issue 37, points 1-2, the contract curation shares): the model's own points when the step's
recorded view saw an image of that size, else the performed CSS point mapped into the image;
text-only records keep the CSS point."""

from __future__ import annotations

import io

from PIL import Image

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.curate.chat_records import render
from webtraj.curate.instance import Instance, KeptStep, RecordKind
from webtraj.model.action import Action, ActionKind
from webtraj.model.task import Task
from webtraj.model.trajectory import ImageView, Observation, Step, Trajectory


def _answer(traj, folder, **options) -> str:
    step = traj.steps[0]
    inst = Instance(trajectory_id=traj.trajectory_id, source_task_id="t", task=traj.task,
                    relabeled=False, c_max=1.0, t_best=1, final_csr=1.0, satisfied=(),
                    steps=(KeptStep(t=0, action=step.action, reasoning="the red one",
                                    kind=RecordKind.STEP),))
    [record] = render(traj, inst, PromptOptions(**options) if options else None, folder)
    return record["messages"][-1]["content"]


def test_the_answer_is_at_the_points_of_the_image_sent(tmp_path):
    out = io.BytesIO()
    Image.new("RGB", (1280, 720), (255, 255, 255)).save(out, format="PNG")
    (tmp_path / "step-000.png").write_bytes(out.getvalue())
    obs = Observation(url="http://127.0.0.1:1/", axtree="", screenshot="step-000.png")
    seen = ImageView(image="screenshot", width=640, height=360, source_width=1280,
                     source_height=720, points=((62.0, 110.0),))
    task = Task(task_id="t", intent="Click the red square.", start_url="http://127.0.0.1:1/")
    traj = Trajectory(trajectory_id="t__llm__t0", task=task, agent="llm", steps=(
        Step(index=0, observation=obs, view=seen,
             action=Action(kind=ActionKind.MOUSE_CLICK, x=124.0, y=220.0)),
        Step(index=1, observation=obs, action=Action(kind=ActionKind.STOP, value=""))))
    vision = {"observation": "screenshot", "action_set": "coords"}
    # The image the teacher saw: its own words.
    assert _answer(traj, tmp_path, **vision, image_max_side=640).endswith(
        "```mouse_click [62] [110]```")
    # Another size: the performed point in that image (1280x720 -> 1000x563).
    assert _answer(traj, tmp_path, **vision, image_max_side=1000).endswith(
        "```mouse_click [96.9] [172]```")
    # Text only: the CSS point the tree's (at x,y) speaks of.
    assert _answer(traj, tmp_path, action_set="coords").endswith("```mouse_click [124] [220]```")
