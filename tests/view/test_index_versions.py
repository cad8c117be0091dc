"""Index versions (store.migrations): a reader meeting an index too old to read (version 0,
per-step values one row each in `step_scores`, as the first webtraj wrote it) says which
command upgrades it, in `runs show`, `runs list`, the report and the viewer, instead of a
traceback or wrong numbers; `webtraj runs upgrade` brings it to the current version with the
same numbers as the run written today; an index written by a newer webtraj is refused by
readers and writers alike."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import httpx
import orjson
import pytest
from typer.testing import CliRunner
from view_builders import alpha_items, write_run

from webtraj.cli.app import app
from webtraj.report.html import write_report
from webtraj.store import RunStore
from webtraj.store.lock import RunLock
from webtraj.store.migrations import CURRENT, IndexTooNew, IndexTooOld
from webtraj.view.server import Viewer

# The index as the first webtraj wrote it (its schema, verbatim).
VERSION_0 = """
CREATE TABLE run (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE trajectories (
    id INTEGER PRIMARY KEY, trajectory_id TEXT NOT NULL UNIQUE, task_id TEXT NOT NULL,
    site TEXT, difficulty TEXT, agent TEXT NOT NULL, trial INTEGER NOT NULL,
    n_steps INTEGER NOT NULL, error TEXT, termination TEXT, added_at REAL NOT NULL);
CREATE INDEX trajectories_task ON trajectories(task_id, trial);
CREATE TABLE score_sets (
    id INTEGER PRIMARY KEY, traj INTEGER NOT NULL REFERENCES trajectories(id),
    evaluator TEXT NOT NULL, value REAL, reason TEXT, error INTEGER NOT NULL DEFAULT 0,
    has_constraints INTEGER NOT NULL DEFAULT 0, body BLOB, added_at REAL NOT NULL);
CREATE INDEX score_sets_traj ON score_sets(traj, evaluator);
CREATE TABLE step_scores (
    score_set INTEGER NOT NULL, traj INTEGER NOT NULL, evaluator TEXT NOT NULL,
    step INTEGER NOT NULL, value REAL);
"""


def _as_version_0(run: Path) -> None:
    """Replace the run's index by one holding the same trajectories and scores the way the
    first webtraj stored them: a JSON-bytes body without the per-step values, and one
    `step_scores` row per step (unscored steps as NULL)."""
    with RunStore.open(run) as store:
        rows = list(store.rows())
        scores = {r.trajectory_id: store.scores(r.trajectory_id, latest_only=False)
                  for r in rows}
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (run / name).unlink(missing_ok=True)
    conn = sqlite3.connect(run / "index.sqlite")
    conn.executescript(VERSION_0)
    now = time.time()
    for r in rows:
        traj = conn.execute(
            "INSERT INTO trajectories (trajectory_id, task_id, site, difficulty, agent, trial, "
            "n_steps, error, termination, added_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (r.trajectory_id, r.task_id, r.site, r.difficulty, r.agent, r.trial, r.n_steps,
             r.error, r.termination, now)).lastrowid
        for s in scores[r.trajectory_id]:
            body = orjson.dumps(s.model_dump(mode="json", exclude_none=True,
                                             exclude={"step_values"}))
            sid = conn.execute(
                "INSERT INTO score_sets (traj, evaluator, value, reason, error, "
                "has_constraints, body, added_at) VALUES (?,?,?,?,?,?,?,?)",
                (traj, s.evaluator, s.value, s.reason, int(s.error), int(bool(s.constraints)),
                 body, now)).lastrowid
            conn.executemany("INSERT INTO step_scores VALUES (?,?,?,?,?)",
                             [(sid, traj, s.evaluator, i, v)
                              for i, v in enumerate(s.step_values or ())])
    conn.commit()
    conn.close()


def _squeezed(text: object) -> str:
    """Text without whitespace: the terminal wraps (and folds long paths in) messages."""
    return "".join(str(text).split())


def _show(run: Path) -> tuple[int, dict | str]:
    result = CliRunner().invoke(app, ["runs", "show", str(run), "--json"])
    if result.exit_code:
        return result.exit_code, result.output
    data = orjson.loads(result.stdout)
    data.pop("path")
    return 0, data


def test_an_index_too_old_to_read_names_the_upgrade_and_upgrades_to_the_same_numbers(
        tmp_path):
    today = write_run(tmp_path / "runs" / "today", alpha_items(n_extra=3))
    old = tmp_path / "runs" / "old"
    shutil.copytree(today, old)
    _as_version_0(old)
    before = (old / "index.sqlite").read_bytes()
    upgrade = f"webtraj runs upgrade {old}"

    # Every reader says which command upgrades it; none changes the index.
    with pytest.raises(IndexTooOld) as err:
        RunStore.open(old)
    assert upgrade in str(err.value) and "version 0" in str(err.value)
    code, out = _show(old)
    assert code == 2 and _squeezed(upgrade) in _squeezed(out)
    assert "Traceback" not in str(out) and "internal error" not in str(out)
    report = CliRunner().invoke(app, ["report", str(old), "--out", str(tmp_path / "r.html")])
    assert report.exit_code == 2 and _squeezed(upgrade) in _squeezed(report.output)
    listed = CliRunner().invoke(app, ["runs", "list", str(tmp_path / "runs"), "--json"])
    entries = {Path(e["path"]).name: e for e in orjson.loads(listed.stdout)}
    assert upgrade in entries["old"]["error"] and "error" not in entries["today"]
    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        for page in (http.get("/"), http.get("/run", params={"r": "old"})):
            assert upgrade in " ".join(page.text.split()), page.text
    assert (old / "index.sqlite").read_bytes() == before

    # The upgrade: a writer, through the run's lock.
    result = CliRunner().invoke(app, ["runs", "upgrade", str(old)])
    assert result.exit_code == 0, result.output
    assert f"upgraded from version 0 to {CURRENT}" in result.output
    conn = sqlite3.connect(old / "index.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'step_scores'"
                            ).fetchall()
    conn.close()
    again = CliRunner().invoke(app, ["runs", "upgrade", str(old)])
    assert f"already at version {CURRENT}" in again.output

    # The same numbers as the run written today: every metric, score, curve and table.
    code_old, shown_old = _show(old)
    code_today, shown_today = _show(today)
    assert code_old == code_today == 0
    assert shown_old == shown_today
    with RunStore.open(old) as a, RunStore.open(today) as b:
        for row in b.rows():
            assert a.scores(row.trajectory_id) == b.scores(row.trajectory_id)
        html_old = write_report(a, tmp_path / "old.html").read_text()
        html_today = write_report(b, tmp_path / "today.html").read_text()
    assert html_old == html_today  # (the copy kept run.json: the same name)


def test_an_index_from_a_newer_webtraj_is_refused_by_readers_and_writers(tmp_path):
    run = write_run(tmp_path / "runs" / "next", alpha_items())
    conn = sqlite3.connect(run / "index.sqlite")
    conn.execute(f"PRAGMA user_version = {CURRENT + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(IndexTooNew, match="newer webtraj"):
        RunStore.open(run)
    with pytest.raises(IndexTooNew, match="newer webtraj"):
        RunStore.open(run, write=True)
    with RunLock(run, "a later writer").acquire():  # the refused writer let the lock go
        pass
    code, out = _show(run)
    assert code == 2 and "newer webtraj" in str(out)
    result = CliRunner().invoke(app, ["runs", "upgrade", str(run)])
    assert result.exit_code == 2 and "newer webtraj" in result.output
