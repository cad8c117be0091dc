"""The llm and vlm judges over real HTTP against the scripted OpenAI-compatible server."""

import asyncio

import pytest

from webtraj.evaluate.constraints.evaluator import ConstraintsEvaluator
from webtraj.evaluate.constraints.model_judges import ModelJudge
from webtraj.llm import LLMCache, LLMClient, resolve_spec
from webtraj.model import Constraint, Observation, Step, Task, Trajectory
from webtraj.model.action import Action
from webtraj.testing import ScriptedLLMServer

GOOD = """The page shows Lisbon results for the right dates but no pool filter.
```json
{
  "location": {"ground_truth": "Lisbon", "agent_state": "Lisbon", "matching": "true",},
  "start_date": {"ground_truth": "March 12, 2026", "agent_state": "Mar 12", "matching": true},
  "pool": {"ground_truth": true, "agent_state": null, "matching": "false",},
}
```"""


def _trajectory(tid: str, url: str, shot: str | None = None) -> Trajectory:
    task = Task(task_id=tid, intent="Hotels in Lisbon with a pool from March 12, 2026",
                constraints=(Constraint(name="location", value="Lisbon", type="location"),
                             Constraint(name="start_date", value="March 12, 2026",
                                        type="date"),
                             Constraint(name="pool", value=True, type="boolean")))
    obs = Observation(url=url, axtree="[1] [heading] [Hotels in Lisbon]", screenshot=shot)
    step = Step(index=0, observation=Observation(url="http://h/"),
                action=Action(kind="stop", value=""))
    return Trajectory(trajectory_id=tid, task=task, agent="a", steps=(step,),
                      final_observation=obs)


def _client(server, tmp_path) -> LLMClient:
    spec = resolve_spec(f"base_url={server.base_url},model=judge,max_retries=0", environ={})
    return LLMClient(spec, cache=LLMCache(tmp_path / "cache.sqlite"))


def test_llm_judge_parses_lenient_json_and_caches(tmp_path):
    with ScriptedLLMServer(default=GOOD) as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode="llm"))
        trajs = [_trajectory(f"t{i}", f"http://h/search?d=lisbon&i={i}") for i in range(3)]
        scores = [asyncio.run(evaluator.evaluate(t, None))[0] for t in trajs]
        assert server.request_count == 3
        for s in scores:
            assert s.evaluator == "constraints:llm"
            assert s.value == pytest.approx(2 / 3)
            assert [c.matching for c in s.constraints] == [True, True, False]
        # The judge sees URL and page, never the action history.
        assert "stop" not in server.requests[0].last_user
        # A second evaluation of the same run is served from the cache.
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode="llm"))
        again = [asyncio.run(evaluator.evaluate(t, None))[0] for t in trajs]
        assert server.request_count == 3
        assert [s.value for s in again] == [s.value for s in scores]


def test_malformed_reply_is_unscored_not_failed(tmp_path):
    with ScriptedLLMServer(default="The agent did fine, I think.") as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode="llm"))
        [score] = asyncio.run(evaluator.evaluate(_trajectory("t", "http://h/x"), None))
        assert score.value is None and not score.error
        assert "unparseable" in score.reason
        assert server.request_count == 2  # one re-ask with the parse error


def test_partial_reply_leaves_observation_unscored(tmp_path):
    reply = '{"location": {"ground_truth": "Lisbon", "agent_state": "Lisbon", "matching": true}}'
    with ScriptedLLMServer(default=reply) as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode="llm"))
        [score] = asyncio.run(evaluator.evaluate(_trajectory("t", "http://h/x"), None))
    assert score.value is None and "start_date" in score.reason


def test_vlm_judge_sends_the_screenshot(tmp_path):
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00"
           b"\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe"
           b"\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
    (tmp_path / "final.png").write_bytes(png)
    with ScriptedLLMServer(default=GOOD) as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode="vlm"))
        traj = _trajectory("t", "http://h/x", shot="final.png")
        [score] = asyncio.run(evaluator.evaluate(traj, tmp_path))
        assert score.evaluator == "constraints:vlm" and score.value == pytest.approx(2 / 3)
        assert server.requests[0].n_images == 1
        [missing] = asyncio.run(evaluator.evaluate(_trajectory("u", "http://h/y"), tmp_path))
        assert missing.value is None and "no screenshot" in missing.reason


@pytest.mark.parametrize("mode", ["llm", "vlm"])
def test_unreadable_observation_is_unknown_and_never_sent(tmp_path, mode):
    """An observation whose page could not be read is unknown for the model judges, with the
    reason, and costs no call; the readable ones around it are judged as usual."""
    traj = _trajectory("t", "http://h/search?d=lisbon")
    why = "cannot read the accessibility tree: the page has 40,005 elements, over the bound"
    first = traj.steps[0].model_copy(update={"observation": Observation(
        url="http://h/rooms", unreadable=why)})
    traj = traj.model_copy(update={"steps": (first,)})
    with ScriptedLLMServer(default=GOOD) as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path), mode=mode),
                                         steps="all")
        [score] = asyncio.run(evaluator.evaluate(traj, None))
        # llm: the final observation only; vlm: not even that (it has no screenshot).
        assert server.request_count == (1 if mode == "llm" else 0)
    assert score.step_values[0] is None
    assert all(c.matching is None and why in c.reason for c in score.step_checks[0])
    if mode == "llm":
        assert score.step_values[1] == pytest.approx(2 / 3)
    # Unreadable at the end: the trajectory is unscored with the reason, never 0.
    final = traj.final_observation.model_copy(update={"unreadable": why})
    with ScriptedLLMServer(default=GOOD) as server:
        evaluator = ConstraintsEvaluator(ModelJudge(_client(server, tmp_path / "b"), mode=mode))
        [score] = asyncio.run(evaluator.evaluate(
            traj.model_copy(update={"final_observation": final}), None))
        assert server.request_count == 0
    assert score.value is None and why in score.reason and not score.error
