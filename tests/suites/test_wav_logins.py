"""WebArena-Verified logins from worker processes: `webtraj run --suite webarena-verified` with
`--accounts`, run by the CLI as users run it, with two local worker processes and with the Ray
executor (a local Ray instance on loopback), against the stand-in deployment (`wav_standin`)
whose login accepts only the right password. The password reaches the workers (the reddit
episode logs in and is no error) and nothing the run keeps or prints shows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wav_standin import REDDIT_PASSWORD, REDDIT_USER, StandIn

WEBTRAJ = Path(sys.executable).with_name("webtraj")
# Task 27 starts on reddit (the stand-in's login page is /login); 44 on gitlab (no login).
TASKS = "27,44"


def _run(tmp_path: Path, *extra: str) -> None:
    with StandIn() as standin:
        urls, accounts = tmp_path / "urls.json", tmp_path / "accounts.json"
        urls.write_text(json.dumps(standin.urls))
        accounts.write_text(json.dumps({"reddit": {"username": REDDIT_USER,
                                                   "password": REDDIT_PASSWORD},
                                        "gitlab": None}))
        out = tmp_path / "run"
        env = {**os.environ, "COLUMNS": "200", "RAY_AUTH_MODE": "disabled",
               "WEBTRAJ_LLM_CACHE": str(tmp_path / "cache.sqlite")}
        proc = subprocess.run(
            [str(WEBTRAJ), "run", "--suite", "webarena-verified", "--site-urls", str(urls),
             "--accounts", str(accounts), "--task-ids", TASKS, "--agent", "heuristic",
             "--max-steps", "2", "--timeout", "120", "--workers", "2", *extra,
             "--out", str(out)], capture_output=True, text=True, timeout=600, env=env)
        logins = [body for method, path, body in standin.requests["reddit"]
                  if method == "POST" and path == "/login"]
        sessions = set(standin.reddit_cls.sessions)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # The worker posted the account's password (not pydantic's mask) and was let in.
    assert logins and all(REDDIT_PASSWORD in body and "*****" not in body for body in logins)
    assert sessions
    trajs = {p.parent.name: json.loads(p.read_text())
             for p in (out / "trajectories").glob("*/trajectory.json")}
    assert {t["task"]["task_id"] for t in trajs.values()} == {"27", "44"}
    for traj in trajs.values():
        assert traj.get("error") is None, traj.get("error")
    # Nothing kept or printed has the password: run.json, trajectories, HARs, report, index.
    assert REDDIT_PASSWORD not in proc.stdout + proc.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert REDDIT_PASSWORD.encode() not in path.read_bytes(), path


def test_two_worker_processes_log_in_with_the_accounts_password(tmp_path):
    _run(tmp_path)


@pytest.mark.slow
def test_ray_workers_log_in_with_the_accounts_password(tmp_path):
    pytest.importorskip("ray")
    _run(tmp_path, "--executor", "ray")
