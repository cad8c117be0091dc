"""Pages say what is missing instead of drawing empty boxes: a step with no tree (an imported
run) or an unreadable one, and a run that made no model calls."""

from __future__ import annotations

from pathlib import Path

import httpx
from view_builders import task, traj

from webtraj.model.run import RunInfo
from webtraj.store import RunStore
from webtraj.view.server import Viewer


def test_missing_tree_and_usage_are_said_not_drawn_empty(tmp_path: Path):
    t = task(1)
    base = traj(t, ["5", "stop"])
    empty = base.steps[0].model_copy(update={"observation": base.steps[0].observation.model_copy(
        update={"axtree": ""})})
    unreadable = base.steps[1].model_copy(update={
        "observation": base.steps[1].observation.model_copy(update={
            "axtree": "", "unreadable": "the page has over 20000 elements"})})
    item = base.model_copy(update={"steps": (empty, unreadable)})
    root = tmp_path / "runs" / "r"
    with RunStore.create(root, RunInfo(name="r", timings={"total_s": 3.5})) as store:
        store.add_trajectory(item)
    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/trajectory", params={"r": "r", "t": item.trajectory_id})
        assert page.status_code == 200
        assert "<h4>Accessibility tree</h4>" not in page.text
        assert "no accessibility tree recorded for this step" in page.text
        assert "accessibility tree not readable: the page has over 20000 elements" in page.text
        run = http.get("/run", params={"r": "r"})
        assert run.status_code == 200
        assert "no model calls · wall time 3.5 s" in run.text
        assert '<table class="usage">' not in run.text
