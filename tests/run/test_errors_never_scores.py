"""An episode lost to the infrastructure (the agent's model endpoint answering HTTP 500, or
nothing listening on its port) is an error on every surface, never a score: no 0 is stored
for it, re-scoring brings none back, and the end-of-run table, `runs show` (human and
--json), `runs list`, report.html and the viewer count it apart. Real Chromium, the booking
sandbox and the scripted OpenAI-compatible server."""

from __future__ import annotations

import contextlib
import re
import socket

import httpx
import orjson
import pytest
from typer.testing import CliRunner

from factories import SANDBOX_TODAY
from webtraj.cli.app import app
from webtraj.store import RunStore
from webtraj.testing import Fault, ScriptedLLMServer

runner = CliRunner()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _endpoint(kind: str):
    if kind == "http500":
        with ScriptedLLMServer(default="unused") as srv:
            srv.inject(Fault.server_error(500), times=None)
            yield srv.base_url
    else:
        yield f"http://127.0.0.1:{_closed_port()}/v1"


@pytest.mark.parametrize("kind", ["http500", pytest.param("closed-port",
                                                           marks=pytest.mark.slow)])
def test_dead_model_endpoint_is_an_error_never_a_score(tmp_path, kind):
    out = tmp_path / "runs" / "dead"
    with _endpoint(kind) as base:
        res = runner.invoke(app, [
            "run", "--suite", "booking", "--agent", "llm", "--today", SANDBOX_TODAY,
            "--llm", f"base_url={base},model=scripted,max_retries=0",
            "--task-ids", "booking.hotels.01,booking.cars.01", "--max-steps", "2",
            "--out", str(out)])
    # Exit 3 (the run is not whole), the count in the last line.
    assert res.exit_code == 3, res.output
    assert res.stdout.strip().splitlines()[-1].startswith("2 of 2 episodes ended in an error")
    # The end-of-run table: both episodes are errors, nothing scored, no 0.000 anywhere.
    assert "2 episodes, 2 ended in an error" in res.stdout
    assert "0.000" not in res.stdout

    with RunStore.open(out) as store:
        trajs = list(store.iter_trajectories())
        assert len(trajs) == 2 and all(t.error for t in trajs)
        for t in trajs:
            scores = store.scores(t.trajectory_id)
            assert scores, "each evaluator records why it did not score"
            assert all(s.value is None and s.error for s in scores)
            assert all("episode ended in an error" in s.reason for s in scores)

    # Re-scoring cannot bring a 0 back.
    res = runner.invoke(app, ["eval", "--run", str(out)])
    assert res.exit_code == 0, res.output
    with RunStore.open(out) as store:
        for t in store.iter_trajectories():
            assert all(s.value is None and s.error for s in store.scores(t.trajectory_id))

    res = runner.invoke(app, ["runs", "show", str(out), "--json"])
    assert res.exit_code == 0, res.output
    shown = orjson.loads(res.stdout)
    assert shown["episode_errors"] == 2
    for ev in shown["evaluators"].values():
        assert ev["scored"] == 0 and ev["errors"] >= 1 and ev["mean"] is None
    for row in shown["metrics"]["rows"]:
        assert row["scored"] == 0 and row["errors"] >= 2
        assert all(m["value"] is None and m["n"] == 0 for m in row["metrics"])
    assert all(set(t["scores"].values()) == {None} for t in shown["trajectories"])

    res = runner.invoke(app, ["runs", "show", str(out)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert "0.000" not in res.stdout and "2 ended in an error" in res.stdout

    res = runner.invoke(app, ["runs", "list", str(tmp_path / "runs"), "--json"])
    [entry] = orjson.loads(res.stdout)
    assert entry["errors"] == 2
    assert entry["headline"].startswith("constraints:oracle") and "(n=0)" in entry["headline"]

    report = (out / "report.html").read_text()
    assert not re.search(r">0\.000<", report)
    assert "2 ended in an error" in report

    from webtraj.view.server import Viewer

    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        runs = http.get("/").text
        run = http.get("/run", params={"r": "dead"}).text
    assert "(n=0)" in runs and "0.000" not in runs
    assert "2 ended in an error" in run and "0.000" not in run
