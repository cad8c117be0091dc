"""An importer given a file of another format says which format it expected, exits 2 and
creates nothing (issue 28, point 6); a run it was pointed at is left as it was."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app

runner = CliRunner()


def _import(*args: str):
    res = runner.invoke(app, ["import", *args], env={"COLUMNS": "300"})
    return res.exit_code, " ".join(res.output.split())


@pytest.mark.parametrize("other", ["webvoyager", "mind2web"])
def test_browser_use_refuses_histories_of_other_tools(tmp_path, other, wv_results, m2w_file):
    wrong = (next(wv_results.glob("*/interact_messages.json")) if other == "webvoyager"
             else m2w_file)
    out = tmp_path / "run"
    code, text = _import("browser-use", str(wrong), "--out", str(out))
    assert code == 2, text
    assert "not a browser-use history" in text and "AgentHistoryList.save_to_file" in text
    assert not out.exists()


def test_browser_use_refuses_an_empty_history(tmp_path):
    empty = tmp_path / "history.json"
    empty.write_text('{"history": []}')
    code, text = _import("browser-use", str(empty), "--out", str(tmp_path / "run"))
    assert code == 1 and "the history is empty" in text and "nothing imported" in text
    assert not (tmp_path / "run").exists()


def test_other_importers_name_the_format_they_expected(tmp_path, bu_new, m2w_file):
    out = tmp_path / "run"
    code, text = _import("mind2web", str(bu_new), "--out", str(out))
    assert code == 2 and "not Mind2Web data" in text and "annotation_id" in text, text
    assert not out.exists()

    results = tmp_path / "results"
    (results / "task1").mkdir(parents=True)
    shutil.copy(bu_new, results / "task1" / "interact_messages.json")
    code, text = _import("webvoyager", str(results), "--out", str(out))
    assert code == 2 and "not a WebVoyager result" in text and "chat messages" in text, text
    assert not out.exists()


def test_a_run_pointed_at_is_left_unchanged(tmp_path, bu_new, m2w_file):
    out = tmp_path / "run"
    code, text = _import("browser-use", str(bu_new), "--out", str(out))
    assert code == 0, text
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    code, text = _import("browser-use", str(m2w_file), "--out", str(out))
    assert code == 2 and "not a browser-use history" in text
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
