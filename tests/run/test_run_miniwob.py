"""`webtraj run --suite miniwob`: the llm agent (against the scripted model server) runs
MiniWoB++ end to end through the CLI, workers and the scoring stage; the page's own reward
is the score, and the run records the suite's URLs and seeds."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from webtraj.execute.suites import get_suite
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.store import RunStore
from webtraj.testing import ScriptedLLMServer

pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")


def _element(text: str, role: str, name: str | None = None) -> str | None:
    for line in text.splitlines():
        m = re.match(r"\s*\[(\d+)\] \[" + role + r"\] \[([^\]]*)\]", line)
        if m and (name is None or m.group(2) == name):
            return m.group(1)
    return None


def _reply(request) -> str:
    """Reads the task and the page like a model would, and acts."""
    text = request.last_user
    task = re.search(r"^TASK: (.*)$", text, re.M).group(1)
    done = "PREVIOUS ACTIONS:\nNone" not in text
    word = re.search(r'"([^"]*)"', task).group(1)
    if task.startswith("Click on the"):
        if done:
            return f"Clicked it. {ACTION_PHRASE} ```stop []```"
        return f"The button to click is {word}. {ACTION_PHRASE} " \
            f"```click [{_element(text, 'button', word)}]```"
    if "type [" not in text:
        return f"Type the word first. {ACTION_PHRASE} " \
            f"```type [{_element(text, 'textbox')}] [{word}] [0]```"
    if "click [" not in text:
        return f"Now submit. {ACTION_PHRASE} ```click [{_element(text, 'button', 'Submit')}]```"
    return f"Submitted. {ACTION_PHRASE} ```stop []```"


def test_llm_agent_runs_miniwob_end_to_end(tmp_path, monkeypatch):
    from webtraj.cli.app import app
    from webtraj.suites.miniwob import tasks as miniwob_tasks

    def no_page_before_the_run(*_a, **_k):
        raise AssertionError("a run reads each instruction in its episode's own page load")

    # Issue 42: no page is opened before the episodes (each page loads once, in its episode).
    monkeypatch.setattr(miniwob_tasks, "probe_pages", no_page_before_the_run)
    out = tmp_path / "run"
    with ScriptedLLMServer(default=_reply) as server:
        result = CliRunner().invoke(app, [
            "run", "--suite", "miniwob", "--task-ids", "click-button,enter-text",
            "--seeds", "0-1", "--agent", "llm", "--agent-option", "history_window=4",
            "--llm", f"base_url={server.base_url},model=scripted", "--workers", "2",
            "--max-steps", "5", "--timeout", "60", "--out", str(out)],
            env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        # Task names select their instances: none of them is "unknown" (issue 26, point 7).
        assert "unknown" not in result.output and "warning" not in result.output
        calls = server.request_count
    with RunStore.open(out) as store:
        trajs = {t.task.task_id: t for t in store.iter_trajectories()}
        assert sorted(trajs) == ["miniwob/click-button/0", "miniwob/click-button/1",
                                 "miniwob/enter-text/0", "miniwob/enter-text/1"]
        for tid, traj in trajs.items():
            [score] = store.scores(traj.trajectory_id, evaluator="miniwob")
            assert score.value == 1.0, (tid, score, [s.error for s in traj.steps])
            assert score.details["raw_reward"] == 1
            assert traj.task.intent == score.details["query"] != ""
            assert traj.task.metadata["time_limit_ms"] == score.details["time_limit_ms"]
            # The page ended the episode at its reward: no stop step after it.
            assert traj.termination == "page_ended", (tid, traj.termination)
            assert all(s.action.kind != "stop" for s in traj.steps)
        info = store.info
    assert calls == 2 * 1 + 2 * 2  # click; type + click
    assert info.settings.suite == "miniwob"
    assert get_suite("miniwob").options(info.settings).seeds == (0, 1)
    assert info.settings.agent_options == {"history_window": 4}
    assert set(info.site_urls) == {"miniwob"}
    assert info.usage["llm"]["total"]["calls"] == calls


def test_bad_agent_option_fails_before_any_browser(tmp_path):
    from webtraj.cli.app import app

    out = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "run", "--suite", "miniwob", "--agent", "mindact", "--agent-option", "top_k=lots",
        "--llm", "base_url=http://127.0.0.1:9/v1,model=x", "--out", str(out)])
    assert result.exit_code == 2
    assert "option top_k" in result.output and "valid integer" in result.output
    assert not out.exists()


def test_options_file_and_evaluators_are_checked_before_any_browser(tmp_path):
    from webtraj.cli.app import app

    opts = tmp_path / "opts.yaml"
    opts.write_text("history_window: 3\nfew_shot: maybe\n")
    out = tmp_path / "run"
    llm = "base_url=http://127.0.0.1:9/v1,model=x"
    result = CliRunner().invoke(app, [
        "run", "--suite", "miniwob", "--agent", "llm", "--agent-options", str(opts),
        "--llm", llm, "--out", str(out)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "option few_shot" in result.output
    # --agent-option wins over the file.
    opts.write_text("history_window: 3\n")
    result = CliRunner().invoke(app, [
        "run", "--suite", "miniwob", "--agent", "llm", "--agent-options", str(opts),
        "--agent-option", "history_window=-1", "--llm", llm, "--out", str(out)],
        env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "option history_window" in result.output
    result = CliRunner().invoke(app, [
        "run", "--suite", "miniwob", "--agent", "heuristic", "--evaluator",
        "no_such_pkg.judges:Judge", "--out", str(out)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "cannot import module 'no_such_pkg.judges'" in result.output
    assert not out.exists()
