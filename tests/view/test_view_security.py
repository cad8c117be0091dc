"""The viewer against hostile and damaged run folders, over real HTTP: links inside a run are
never followed (a run shared with `trajectories -> ~` does not serve ~/.ssh/id_rsa), only the
viewer's own Host names are answered (DNS rebinding), a damaged run is listed with its reason
while every other run works, bad query values are 400, and nothing puts a traceback in the
log."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
from pathlib import Path

import httpx
import pytest
from view_builders import alpha_items, beta_items, write_run

from webtraj.view import stats
from webtraj.view.server import Viewer

TID = "hotels-001__heuristic__t0"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- secret"


@pytest.fixture
def hostile_root(tmp_path: Path) -> Path:
    """Runs shared as a tarball would bring them: one whose `trajectories` is a link to the
    user's home, one whose trajectory folder is a link, one with links and odd files inside
    a real trajectory folder; plus a good run."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    (home / "notes").mkdir()
    (home / "notes" / "trajectory.json").write_text(KEY)
    root = tmp_path / "runs"
    write_run(root / "good", beta_items())
    shared = write_run(root / "shared", alpha_items())
    shutil.rmtree(shared / "trajectories")
    os.symlink(home, shared / "trajectories")
    linked = write_run(root / "linked", alpha_items())
    shutil.rmtree(linked / "trajectories" / TID)
    os.symlink(home / ".ssh", linked / "trajectories" / TID)
    inside = write_run(root / "inside", alpha_items())
    folder = inside / "trajectories" / TID
    os.symlink(home / ".ssh" / "id_rsa", folder / "key.png")
    os.symlink(home / ".ssh", folder / "sub")
    (folder / "shots").mkdir()
    os.symlink(home / ".ssh" / "id_rsa", folder / "shots" / "a.png")
    os.mkfifo(folder / "pipe.txt")
    # a link in the runs folder to a run elsewhere (outside the folder the viewer serves)
    write_run(tmp_path / "elsewhere" / "private", beta_items())
    os.symlink(tmp_path / "elsewhere", root / "outside")
    return root


def test_links_inside_a_run_are_never_followed(hostile_root: Path):
    with Viewer([hostile_root]) as v, httpx.Client(base_url=v.url, timeout=30) as http:
        listed = http.get("/").text
        assert 'data-run="good"' in listed and "private" not in listed
        assert http.get("/run", params={"r": "outside/private"}).status_code == 404
        attempts = [
            ("shared", ".ssh", "id_rsa"),  # the reported leak: trajectories -> home
            ("shared", "notes", "trajectory.json"),
            ("linked", TID, "id_rsa"),  # a trajectory folder that is a link
            ("inside", TID, "key.png"),  # a file that is a link
            ("inside", TID, "sub/id_rsa"),  # a folder inside that is a link
            ("inside", TID, "shots/a.png"),  # a link one folder down
            ("inside", TID, "pipe.txt"),  # not a regular file
            ("inside", TID, "shots"),  # a folder
            ("inside", TID, "shots/../key.png"),
            ("inside", TID, "/etc/passwd"),
        ]
        for run, tid, name in attempts:
            r = http.get("/file", params={"r": run, "t": tid, "name": name})
            assert r.status_code == 404, (run, tid, name)
            assert "PRIVATE KEY" not in r.text
        for run, tid in (("shared", "notes"), ("shared", ".ssh"), ("linked", TID)):
            for route in ("/trajectory", "/network"):
                r = http.get(route, params={"r": run, "t": tid})
                assert r.status_code == 404 and "PRIVATE KEY" not in r.text, (route, run)
        # the real files of a real trajectory folder are still served
        ok = http.get("/file", params={"r": "inside", "t": TID, "name": "trajectory.json"})
        assert ok.status_code == 200 and TID in ok.text
        page = http.get("/trajectory", params={"r": "inside", "t": TID})
        assert page.status_code == 200 and "PRIVATE KEY" not in page.text


def _raw_get(port: int, host: str | None, path: str = "/", version: str = "1.1") -> str:
    """The status line of a request sent byte by byte (so the Host header is exactly ours)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        head = f"GET {path} HTTP/{version}\r\n"
        if host is not None:
            head += f"Host: {host}\r\n"
        s.sendall((head + "Connection: close\r\n\r\n").encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.decode("latin-1")


def test_only_the_viewers_own_host_names_are_answered(tmp_path: Path):
    root = tmp_path / "runs"
    write_run(root / "good", beta_items())
    with Viewer([root]) as v:
        port = v.sock.getsockname()[1]
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}",
                     f"[::1]:{port}"):
            reply = _raw_get(port, host)
            assert reply.startswith("HTTP/1.1 200"), host
            assert "good" in reply
        for host in ("attacker.example", f"attacker.example:{port}", "localhost",
                     f"127.0.0.1:{port + 1}", f"127.0.0.2:{port}",
                     f"localhost.attacker.example:{port}", ""):
            reply = _raw_get(port, host)
            assert reply.startswith("HTTP/1.1 403"), host
            assert "good" not in reply
        # every route, not only the runs page; and HTTP/1.0 with no Host at all
        assert _raw_get(port, "evil.example", "/run?r=good").startswith("HTTP/1.1 403")
        assert _raw_get(port, "evil.example", "/static/viewer.css").startswith("HTTP/1.1 403")
        assert _raw_get(port, None, version="1.0").startswith("HTTP/1.1 403")


def test_viewer_binds_loopback_by_default(tmp_path: Path):
    with Viewer([tmp_path]) as v:
        assert v.sock.getsockname()[0] == "127.0.0.1"


@pytest.fixture
def damaged_root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    garbage = write_run(root / "a-garbage-index", alpha_items())
    (garbage / "index.sqlite").write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        (garbage / f"index.sqlite{suffix}").unlink(missing_ok=True)
    null = write_run(root / "b-null-run-json", alpha_items())
    (null / "run.json").write_text("null")
    dropped = write_run(root / "c-no-table", alpha_items())
    conn = sqlite3.connect(dropped / "index.sqlite")
    conn.execute("DROP TABLE score_sets")
    conn.commit()
    conn.close()
    good = write_run(root / "d-good", alpha_items())
    broken = good / "trajectories" / "cars-003__heuristic__t0" / "trajectory.json"
    broken.write_text('{"trajectory_id": 5')
    return root


def test_damaged_runs_are_listed_with_their_reason_and_the_rest_works(
        damaged_root: Path, capfd, caplog):
    with Viewer([damaged_root]) as v, httpx.Client(base_url=v.url, timeout=30) as http:
        v._warmer.join(60)
        assert not v._warmer.is_alive()
        assert (damaged_root / "d-good").resolve() in stats._cache  # warmed past the others
        runs = http.get("/")
        assert runs.status_code == 200
        text = runs.text
        assert "a-garbage-index" in text and "file is not a database" in text
        assert "b-null-run-json" in text and "expected a JSON object" in text
        assert "c-no-table" in text and "score_sets" in text
        assert text.count("<b>damaged:</b>") == 3
        good = http.get("/run", params={"r": "d-good"})
        assert good.status_code == 200 and "5 matching" in good.text
        # one unreadable trajectory: its pages say so, the run's others still work
        for route in ("/trajectory", "/network", "/prompt"):
            r = http.get(route, params={"r": "d-good", "t": "cars-003__heuristic__t0"})
            assert r.status_code == 422 and "this trajectory cannot be read" in r.text
            assert "invalid JSON" in r.text
        assert http.get("/trajectory", params={"r": "d-good", "t": TID}).status_code == 200
        for run in ("a-garbage-index", "b-null-run-json", "c-no-table"):
            page = http.get("/run", params={"r": run})
            assert page.status_code == 422 and "damaged" in page.text, run
            page = http.get("/trajectory", params={"r": run, "t": TID})
            assert page.status_code in (200, 422), run
        compare = http.get("/compare", params=[("r", "a-garbage-index"), ("r", "d-good")])
        assert compare.status_code == 200 and "file is not a database" in compare.text
        # bad query values are the user's mistake: 400, with what was wrong
        for params in ({"page": "99999999999999999999999"}, {"page": "0"}, {"page": "-3"},
                       {"page": "x"}, {"sort": "evil"}, {"success": "maybe"},
                       {"error": "1; DROP"}):
            r = http.get("/run", params={"r": "d-good", **params})
            assert r.status_code == 400, params
            assert next(iter(params)) in r.text
        for params in ({"p": "99999999999999999999999"}, {"type": "evil"}, {"pg": "7"},
                       {"status": "600"}):
            r = http.get("/network", params={"r": "d-good", "t": TID, **params})
            assert r.status_code == 400, params
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err + caplog.text
    assert not [r for r in caplog.records if r.exc_info]
    # the warm-up went past the damaged runs, logging each in one line
    damaged = next(line for line in caplog.text.splitlines()
                   if "run a-garbage-index is damaged:" in line)
    assert "a-garbage-index/index.sqlite: the run's index is damaged" in damaged
