"""Issue 30: curated records keep mouse and keyboard actions as the agent writes them, in the
assistant's answer and in later steps' history, and they read back as the same actions."""

from __future__ import annotations

from webtraj.curate.chat_records import render
from webtraj.curate.instance import Instance, KeptStep, RecordKind
from webtraj.model import Action, Observation, Step, Task, Trajectory
from webtraj.model.action_text import parse_answer


def test_mouse_and_keyboard_actions_survive_curation():
    task = Task(task_id="miniwob/drag-box/0", site="miniwob", intent="Drag the box",
                start_url="http://127.0.0.1:9/miniwob/drag-box.html?seed=0")
    actions = [Action(kind="mouse_drag", x=20.5, y=80, to_x=120, to_y=90),
               Action(kind="keyboard_type", value="hello [world]"),
               Action(kind="mouse_dblclick", x=3, y=4), Action(kind="stop", value="")]
    obs = Observation(url=task.start_url, axtree="[n1] [div] [] [clickable, box=0,0,9,9]")
    steps = tuple(Step(index=i, observation=obs, action=a, reasoning=f"why {i}")
                  for i, a in enumerate(actions))
    traj = Trajectory(trajectory_id="t", task=task, agent="human", steps=steps,
                      final_observation=obs)
    inst = Instance(trajectory_id="t", source_task_id=task.task_id, task=task, relabeled=False,
                    c_max=1.0, t_best=3, final_csr=1.0, satisfied=(),
                    steps=tuple(KeptStep(t=i, action=a, reasoning=f"why {i}",
                                         kind=RecordKind.STEP if i < 3 else RecordKind.OWN_STOP)
                                for i, a in enumerate(actions)))
    records = render(traj, inst)
    answers = [parse_answer(r["messages"][-1]["content"]).action for r in records]
    assert answers == actions
    last_prompt = records[-1]["messages"][-2]["content"]
    assert "1. mouse_drag [20.5] [80] [120] [90] -- why 0" in last_prompt
    assert "2. keyboard_type [hello \\[world\\]] -- why 1" in last_prompt
