"""Issue 30: a mouse action is shown on its screenshot: a marker at the point, a drag's path
to its end, and the box of the element that was under the point."""

from __future__ import annotations

from pathlib import Path

import httpx
from view_builders import PNG, task, write_run

from webtraj.model import Action, Observation, Step, Trajectory
from webtraj.model.trajectory import ElementBox, PointedElement
from webtraj.view.server import Viewer


def test_mouse_actions_are_drawn_on_the_screenshot(tmp_path: Path):
    t = task(1)
    shot = Observation(url="http://127.0.0.1:8001/", screenshot="step-000.png",
                       axtree="[n1] [canvas] [] [canvas, box=0,0,400,300]")
    steps = (
        Step(index=0, observation=shot, action=Action(kind="mouse_drag", x=10, y=20, to_x=210,
                                                      to_y=120),
             element_box=ElementBox(x=0, y=0, width=400, height=300),
             pointed=(PointedElement(x=10, y=20, tag="canvas", element_id="n1"),
                      PointedElement(x=210, y=120, tag="canvas", element_id="n1"))),
        Step(index=1, observation=shot.model_copy(update={"screenshot": "step-001.png"}),
             action=Action(kind="mouse_click", x=33.5, y=44)),
    )
    traj = Trajectory(trajectory_id="pointer", task=t, agent="human", steps=steps)
    write_run(tmp_path / "runs" / "r", [(traj, [], {"step-000.png": PNG,
                                                      "step-001.png": PNG})])
    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/trajectory", params={"r": "r", "t": "pointer"})
    assert page.status_code == 200
    html = page.text
    assert 'class="drag-path" x1="10.0" y1="20.0" x2="210.0" y2="120.0"' in html
    assert 'class="drag-end" cx="210.0" cy="120.0"' in html
    assert 'class="point" cx="10.0" cy="20.0"' in html
    assert 'class="acted-box" x="0.0" y="0.0" width="400.0" height="300.0"' in html
    # A click at a point with no element box still gets its marker.
    assert 'class="point" cx="33.5" cy="44.0"' in html
    assert "mouse_drag [10] [20] [210] [120]" in html
