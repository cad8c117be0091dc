"""Curation on a MiniWoB++ run: the `miniwob` score's per-step curve (0 until the page's
reward arrived, then 1) picks the prefix that completed the task; a failed episode is dropped.
The episodes are real (Chromium, the suite's server); the agent is an object defined here, so
the Python API runs it in this process."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import webtraj.api as wt

pytest.importorskip("pyarrow", reason="webtraj curate writes Parquet (the 'train' extra)")


def test_curate_a_miniwob_run_on_the_pages_reward(tmp_path, monkeypatch):
    from webtraj.agents import AgentDecision
    from webtraj.cli.app import app
    from webtraj.model.action_text import parse_action

    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))

    class ClickThenLook:
        """Seed 0: the button the task names; other seeds: another one. Then scroll, stop."""

        name = "click-then-look"

        async def act(self, task, observation, history):
            if len(history) == 0:
                word = re.findall(r'"([^"]+)"', task.intent)[0]
                buttons = re.findall(r"\[(\d+)\] \[button\] \[([^\]]*)\]", observation.axtree)
                right = [i for i, n in buttons if n == word]
                wrong = [i for i, n in buttons if n != word]
                pick = right[0] if task.metadata["seed"] == 0 else wrong[0]
                return AgentDecision(action=parse_action(f"click [{pick}]"))
            if len(history) == 1:
                return AgentDecision(action=parse_action("scroll [down]"))
            return AgentDecision(action=parse_action("stop [done]"))

    run = wt.run(suite="miniwob", task_ids=["miniwob/click-button/0",
                                            "miniwob/click-button/2"],
                 agent=ClickThenLook(), out=tmp_path / "run", screenshots=False)
    assert {t.task_id: t.scores["miniwob"] for t in run.summary.trajectories} == \
        {"miniwob/click-button/0": 1.0, "miniwob/click-button/2": 0.0}
    out = tmp_path / "data"
    res = CliRunner().invoke(app, ["curate", "--run", str(run.path), "--out", str(out),
                                   "--val-fraction", "0"])
    assert res.exit_code == 0, res.output
    stats = json.loads((out / "stats.json").read_text())
    assert stats["judge"] == "miniwob"
    assert stats["full_instances"] == 1 and stats["dropped"] == {"zero_csr": 1}
    [record_click, record_stop] = [json.loads(line) for line in
                                   (out / "train.jsonl").read_text().splitlines()]
    # The prefix ends where the reward arrived (after the click), with a stop added there.
    assert "click [" in record_click["messages"][-1]["content"]
    assert "stop [" in record_stop["messages"][-1]["content"]
