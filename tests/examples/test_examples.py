"""The examples a new user starts from, run as a user would: the custom agent through
`webtraj run` with 2 local workers and with Ray, the custom judge through the Python API on
a sandbox run, and the notebook-style script as a script."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import webtraj.api as wt
from webtraj.model import InputError

pytest.importorskip("miniwob", reason="the examples run MiniWoB++ (the 'miniwob' extra)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WEBTRAJ = Path(sys.executable).with_name("webtraj")


def _env(tmp_path) -> dict[str, str]:
    path = os.pathsep.join(filter(None, (str(EXAMPLES), os.environ.get("PYTHONPATH"))))
    return {**os.environ, "PYTHONPATH": path, "RAY_AUTH_MODE": "disabled",
            "WEBTRAJ_LLM_CACHE": str(tmp_path / "cache.sqlite"), "COLUMNS": "200"}


def _run_cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(WEBTRAJ), "run", *args], env=_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)


def _scores(out: Path) -> dict[str, float | None]:
    run = wt.Run.load(out)
    return {t.task_id: t.scores.get("miniwob") for t in run.summary.trajectories}


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_custom_agent_through_webtraj_run(tmp_path, executor):
    out = tmp_path / "run"
    proc = _run_cli(tmp_path, "--suite", "miniwob", "--task-ids", "click-button",
                    "--seeds", "0-1", "--agent", "my_agent:QuotedClickAgent",
                    "--agent-option", "role=button", "--workers", "2", "--executor", executor,
                    "--max-steps", "4", "--timeout", "60", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _scores(out) == {f"miniwob/click-button/{s}": 1.0 for s in range(2)}
    settings = json.loads((out / "run.json").read_text())["settings"]
    assert settings["agent"] == "my_agent:QuotedClickAgent"
    assert settings["agent_options"] == {"role": "button"}
    assert settings["executor"] == executor and settings["workers"] == 2
    assert (out / "report.html").is_file()


def test_custom_agent_options_are_checked(tmp_path):
    proc = _run_cli(tmp_path, "--suite", "miniwob", "--agent", "my_agent:QuotedClickAgent",
                    "--agent-option", "rol=button", "--out", str(tmp_path / "run"))
    assert proc.returncode == 2  # a usage error
    assert "unknown option 'rol'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


def test_agent_object_is_rebuilt_in_workers(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.setenv("PYTHONPATH", str(EXAMPLES))
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    from my_agent import QuotedClickAgent

    agent = QuotedClickAgent(QuotedClickAgent.Options(role="button"))
    assert wt.agent_spec(agent) == ("my_agent:QuotedClickAgent", {"role": "button"})
    run = wt.run(suite="miniwob", task_ids=["click-button"], seeds=[4, 5], agent=agent,
                 workers=2, out=tmp_path / "run", max_steps=4, screenshots=False)
    assert run.success_rate("miniwob") == 1.0
    assert run.summary.n_trajectories == 2
    assert run.summary.info["settings"]["agent"] == "my_agent:QuotedClickAgent"

    class Local:  # cannot be imported by a worker: runs in this process only
        name = "local"

        async def act(self, task, observation, history):
            raise AssertionError("never called")

    with pytest.raises(InputError, match="cannot be rebuilt in worker"):
        wt.run(suite="miniwob", agent=Local(), workers=2, out=tmp_path / "other")


def test_custom_judge_through_the_api(tmp_path, monkeypatch):
    """The URL judge on a sandbox run: the start page's URL meets no constraint; after the
    heuristic agent searched, the URL carries some of the task's values."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    from factories import SANDBOX_TODAY

    run = wt.run(suite="booking", today=SANDBOX_TODAY, task_ids=["booking.hotels.01"],
                 agent="heuristic", out=tmp_path / "run", screenshots=False,
                 evaluators=["constraints:judge=my_judge:UrlJudge,steps=all"])
    [traj] = list(run.trajectories())
    [score] = run.scores(traj.trajectory_id, evaluator="constraints:url")
    assert score.step_values[0] == 0.0
    assert score.value is not None and score.value > 0.0
    assert {c.name for c in score.constraints} == {c.name for c in traj.task.constraints}
    # Options reach the judge; unknown ones are refused before scoring.
    again = wt.rescore(run, [{"evaluator": "constraints", "judge": "my_judge:UrlJudge",
                              "judge_options": {"case_sensitive": True}}])
    assert again.summary.evaluators["constraints:url"].scored == 1
    with pytest.raises(InputError, match="unknown option 'case'"):
        wt.rescore(run, [{"evaluator": "constraints", "judge": "my_judge:UrlJudge",
                          "judge_options": {"case": True}}])


def test_notebook_script(tmp_path):
    proc = subprocess.run([sys.executable, str(EXAMPLES / "notebook.py"),
                           str(tmp_path / "nb")], env=_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "success rate: 1.0" in proc.stdout
    assert "rescored success rate: 1.0" in proc.stdout
    assert _scores(tmp_path / "nb") == {f"miniwob/enter-text/{s}": 1.0 for s in range(2)}


@pytest.mark.slow
def test_readme_python_example(tmp_path):
    """The README's Python example, run as written: it prints the run's tables (not a model
    dump), and the agent it names solves the tasks it runs."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    code = re.search(r"\*\*From Python\*\*.*?```python\n(.*?)```", readme, re.S).group(1)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = proc.stdout
    assert "metrics (notebook)" in text and "RunSummary(" not in text
    assert re.search(r"constraints:oracle.*SR 1\.000", text, re.S), text
    assert "report: runs/notebook/report.html" in " ".join(text.split())
