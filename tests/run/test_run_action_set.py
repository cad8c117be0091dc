"""Issue 30 point 3: `--action-set` picks the actions the llm agent may take; its system
prompt lists exactly that set (generated from the action model), a coordinate agent sees each
element's position and drags in real Chromium, and an action outside the set is refused."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from webtraj.agents.prompting import system_prompt
from webtraj.model.action import ActionKind, ActionSet
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.model.trajectory import Termination
from webtraj.store import RunStore
from webtraj.testing import ScriptedLLMServer


@pytest.mark.parametrize("action_set", list(ActionSet))
def test_prompt_lists_exactly_the_set(action_set):
    prompt = system_prompt(action_set)
    listed = {k for k in ActionKind if f"\n  {action_set.usage(k)}: " in prompt}
    assert listed == set(action_set.kinds)
    assert (ActionKind.MOUSE_DRAG in listed) == (action_set is not ActionSet.IDS)
    assert (ActionKind.CLICK in listed) == (action_set is not ActionSet.COORDS)


def _at(text: str, pattern: str) -> tuple[int, int]:
    m = re.search(pattern + r".*\(at (\d+),(\d+)\)$", text, re.M)
    assert m, (pattern, text)
    return int(m.group(1)), int(m.group(2))


def _reply(request) -> str:
    """A coordinate agent on drag-box: tries a click by id first (refused), then drags the
    small box onto the large one, presses Submit at its point, and stops."""
    system = request.messages[0]["content"]
    assert "mouse_drag [x1] [y1] [x2] [y2]" in system and "click [id]" not in system
    text = request.last_user
    if "PREVIOUS ACTIONS:\nNone" in text and "LAST ACTION FAILED" not in text:
        return f"Click the box by id. {ACTION_PHRASE} ```click [8]```"
    if not re.search(r"^\d+\. mouse_drag \[", text, re.M):
        (sx, sy), (lx, ly) = _at(text, r"\[s\]"), _at(text, r"\[L\]")
        return f"Drag s into L. {ACTION_PHRASE} ```mouse_drag [{sx}] [{sy}] [{lx}] [{ly}]```"
    if not re.search(r"^\d+\. mouse_click \[", text, re.M):
        x, y = _at(text, r"\[button\] \[Submit\]")
        return f"Submit. {ACTION_PHRASE} ```mouse_click [{x}] [{y}]```"
    return f"Done. {ACTION_PHRASE} ```stop []```"


def test_coordinate_agent_drags_in_a_real_page(tmp_path):
    pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")
    from webtraj.cli.app import app

    out = tmp_path / "run"
    with ScriptedLLMServer(default=_reply) as server:
        result = CliRunner().invoke(app, [
            "run", "--suite", "miniwob", "--task-ids", "drag-box", "--seeds", "0",
            "--agent", "llm", "--action-set", "coords", "--llm",
            f"base_url={server.base_url},model=scripted", "--max-steps", "6", "--timeout",
            "60", "--out", str(out)], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
    with RunStore.open(out) as store:
        [traj] = list(store.iter_trajectories())
        [score] = store.scores(traj.trajectory_id, evaluator="miniwob")
        assert store.info.settings.agent_options == {"action_set": "coords"}
    first = traj.steps[0]
    assert first.action is None and "not in this agent's action set (coords)" in first.error
    kinds = [s.action.kind for s in traj.steps[1:]]
    # The page gives its reward on the Submit click and so ends the episode: no stop step.
    assert kinds == [ActionKind.MOUSE_DRAG, ActionKind.MOUSE_CLICK]
    assert traj.termination == Termination.PAGE_ENDED
    assert score.details["raw_reward"] > 0, (score, [s.error for s in traj.steps])
    # The drag is stored with what was under its start (the small box) and its end.
    drag = traj.steps[1]
    assert [p.tag for p in drag.pointed] == ["div", "div"]
    assert drag.pointed[0].text == "s" and drag.pointed[0].element_id.startswith("n")


def test_bad_action_set_is_refused_before_any_browser(tmp_path):
    from webtraj.cli.app import app

    out = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "run", "--suite", "miniwob", "--agent", "llm", "--action-set", "pixels",
        "--llm", "base_url=http://127.0.0.1:9/v1,model=x", "--out", str(out)])
    assert result.exit_code == 2 and "expected ids, coords or both" in result.output
    assert not out.exists()
