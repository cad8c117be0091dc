"""The Python API on a list of Task objects (not a suite): the tasks are stored with the run
(so it can resume), episodes run, the task's own evaluator scores them, and a second call
with the same `out` resumes instead of running them again."""

from __future__ import annotations

import re

import pytest

import webtraj.api as wt
from webtraj.model import InputError


def test_api_runs_a_list_of_tasks_and_resumes(tmp_path, monkeypatch, miniwob_server):
    from webtraj.agents import AgentDecision
    from webtraj.model.action_text import parse_action
    from webtraj.suites.miniwob.tasks import build_tasks

    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    tasks, failed = build_tasks(miniwob_server.base_url, ["click-button"], [7])
    assert failed == []
    calls = []

    class Clicker:
        name = "clicker"

        async def act(self, task, observation, history):
            calls.append(task.task_id)
            if history:
                return AgentDecision(action=parse_action("stop []"))
            word = re.findall(r'"([^"]+)"', task.intent)[0]
            element = re.search(rf"\[(\d+)\] \[button\] \[{re.escape(word)}\]",
                                observation.axtree).group(1)
            return AgentDecision(action=parse_action(f"click [{element}]"))

    out = tmp_path / "run"
    run = wt.run([t.model_dump(mode="json") for t in tasks], agent=Clicker(), out=out,
                 screenshots=False)
    # One call: the page ends the episode at its reward, before any stop (issue 42).
    assert run.success_rate("miniwob") == 1.0 and len(calls) == 1
    assert (out / "tasks.jsonl").is_file() and run.report.is_file()
    [traj] = list(run.trajectories())
    assert run.scores(traj.trajectory_id, "miniwob")[0].details["raw_reward"] == 1
    again = wt.run(out / "tasks.jsonl", agent=Clicker(), out=out)
    assert len(calls) == 1 and again.summary.n_trajectories == 1
    with pytest.raises(InputError, match="an agent object carries its own options"):
        wt.run(out / "tasks.jsonl", agent=Clicker(), agent_options={"x": 1},
               out=tmp_path / "other")
    with pytest.raises(InputError, match="takes no options"):
        wt.run(out / "tasks.jsonl", agent="heuristic", agent_options={"x": 1},
               out=tmp_path / "other")
    assert not (tmp_path / "other").exists()
