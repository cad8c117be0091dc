"""The viewer's server over real sockets: traversal attempts get 404, no write routes, a run
that starts while the viewer is up appears and grows, loopback unless --host is explicit, a
busy port is a clear error."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner
from view_builders import ALL, alpha_items, as_schema_1, csr_score, task, traj, write_run

from webtraj.cli.app import app
from webtraj.store import RunStore
from webtraj.view.server import Viewer, ViewerError, bind


@pytest.fixture
def small_root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    write_run(root / "alpha", alpha_items())
    (tmp_path / "secret.txt").write_text("outside")
    folder = root / "alpha" / "trajectories" / "hotels-001__heuristic__t0"
    os.symlink(tmp_path / "secret.txt", folder / "link.png")
    return root


def test_traversal_and_unknown_paths_get_404(small_root: Path):
    tid = "hotels-001__heuristic__t0"
    with Viewer([small_root]) as v, httpx.Client(base_url=v.url) as http:
        ok = http.get("/file", params={"r": "alpha", "t": tid, "name": "trajectory.json"})
        assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")
        for params in (
            {"r": "alpha", "t": tid, "name": "../../run.json"},
            {"r": "alpha", "t": tid, "name": "../../index.sqlite"},
            {"r": "alpha", "t": tid, "name": "/etc/passwd"},
            {"r": "alpha", "t": tid, "name": "link.png"},  # a symlink out of the run
            {"r": "alpha", "t": tid, "name": ""},
            {"r": "alpha", "t": "..", "name": "run.json"},
            {"r": "alpha", "t": "../..", "name": "secret.txt"},
            {"r": "..", "t": tid, "name": "trajectory.json"},
            {"r": "alpha/../..", "t": tid, "name": "trajectory.json"},
        ):
            r = http.get("/file", params=params)
            assert r.status_code == 404, params
            assert "outside" not in r.text
        assert http.get("/trajectory", params={"r": "alpha", "t": "../alpha"}).status_code == 404
        assert http.get("/run", params={"r": "nope"}).status_code == 404
        assert http.post("/run", params={"r": "alpha"}).status_code == 405
        assert http.delete("/file", params={"r": "alpha"}).status_code == 405
        page = http.get("/")
        assert "script-src 'self'" in page.headers["content-security-policy"]


def test_run_in_progress_appears_and_grows(tmp_path: Path, monkeypatch):
    from webtraj.view import stats

    monkeypatch.setattr(stats, "REFRESH_S", 0.0)  # tables as of the last write, not 5 s old
    root = tmp_path / "runs"
    root.mkdir()
    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        assert "0 run(s)" in http.get("/").text
        store = RunStore.create(root / "live")
        try:
            assert 'data-run="live"' in http.get("/").text
            t1 = traj(task(1), ["10", "stop"])
            store.add_trajectory(t1)
            assert "1 matching" in http.get("/run", params={"r": "live"}).text
            store.add_scores([(t1.trajectory_id, csr_score([[], ALL, ALL]))])
            store.add_trajectory(traj(task(2), ["10"]))
            page = http.get("/run", params={"r": "live"}).text
            assert "2 matching" in page and "hotels-002__heuristic__t0" in page
            assert "SR <b>1.000</b>" in page
        finally:
            store.close()


def test_loopback_only_unless_host_is_explicit():
    with pytest.raises(ViewerError, match="loopback only"):
        bind("0.0.0.0", 0)
    bind("127.0.0.1", 0).close()


def test_busy_port_is_a_clear_error(tmp_path: Path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ViewerError, match=f"cannot listen on 127.0.0.1:{port}"):
            Viewer([tmp_path], port=port)
        result = CliRunner().invoke(app, ["view", str(tmp_path), "--port", str(port)])
        assert result.exit_code == 2
        assert f"cannot listen on 127.0.0.1:{port}" in " ".join(result.output.split())
        assert "Traceback" not in result.output
        result = CliRunner().invoke(app, ["view", str(tmp_path), "--host", "0.0.0.0",
                                          "--port", str(port)])
        assert "warning" in result.output and "0.0.0.0" in result.output


def test_missing_folder_is_a_clear_error(tmp_path: Path):
    result = CliRunner().invoke(app, ["view", str(tmp_path / "nope"), "--port", "0"])
    assert result.exit_code == 2 and "no such folder" in result.output


def test_index_from_before_intent_columns_still_lists(tmp_path: Path):
    import sqlite3

    root = tmp_path / "runs"
    write_run(root / "old", alpha_items())
    as_schema_1(root / "old" / "index.sqlite")
    conn = sqlite3.connect(root / "old" / "index.sqlite")
    conn.execute("ALTER TABLE trajectories DROP COLUMN intent")
    conn.execute("ALTER TABLE trajectories DROP COLUMN answer")
    conn.commit()
    conn.close()
    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/run", params={"r": "old"})
        assert page.status_code == 200 and "5 matching" in page.text
        assert "0 matching" in http.get("/run", params={"r": "old", "q": "Lisbon"}).text
        traj = http.get("/trajectory", params={"r": "old", "t": "hotels-001__heuristic__t0"})
        assert traj.status_code == 200 and "expected" in traj.text
