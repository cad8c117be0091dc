"""Nothing silently does nothing: an empty Mind2Web file and a task without its text are
reported (and counted) by the loader, the importer and `mind2web score`."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.formats.mind2web import IssueLog, iter_steps

runner = CliRunner()


def test_empty_files_are_reported(tmp_path, m2w_file):
    folder = m2w_file.parent
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "empty_list.json").write_bytes(b"[]")
    issues = IssueLog()
    steps = list(iter_steps(folder, issues=issues))
    assert len(steps) == 8
    empty = sorted(i.file for i in issues if "empty" in i.message)
    assert empty == [str(folder / "empty.jsonl"), str(folder / "empty_list.json")]

    res = runner.invoke(app, ["import", "mind2web", str(folder / "empty.jsonl"), "--out",
                              str(tmp_path / "run"), "--json"])
    summary = orjson.loads(res.stdout)
    assert res.exit_code == 1 and summary["errors"] == 1 and summary["imported"] == 0
    assert "it is empty" in summary["problems"][0]["message"]

    preds = tmp_path / "p.jsonl"
    preds.write_bytes(b"")
    res = runner.invoke(app, ["mind2web", "score", "--data", str(folder / "empty.jsonl"),
                              "--predictions", str(preds), "--out", str(tmp_path / "m.json")])
    out = " ".join(res.output.split())
    assert res.exit_code == 2 and "it is empty" in out and "no usable steps" in out


def test_task_without_confirmed_task_is_a_warning_once_per_task(tmp_path, m2w_file):
    tasks = orjson.loads(m2w_file.read_bytes())
    del tasks[0]["confirmed_task"]
    tasks[2]["confirmed_task"] = "  "
    m2w_file.write_bytes(orjson.dumps(tasks))
    issues = IssueLog()
    list(iter_steps(m2w_file, issues=issues))
    missing = [i for i in issues if i.field == "confirmed_task"]
    assert [(i.annotation_id, i.skipped) for i in missing] == [("aaaa-1111", False),
                                                              ("cccc-3333", False)]
    res = runner.invoke(app, ["import", "mind2web", str(m2w_file), "--out",
                              str(tmp_path / "run"), "--json"])
    summary = orjson.loads(res.stdout)
    assert summary["imported"] == 3
    assert sum(p["field"] == "confirmed_task" for p in summary["problems"]
               if p["level"] == "warning") == 2


def test_flattened_step_without_task_text(tmp_path):
    line = {"annotation_id": "a1", "action_uid": "s1", "website": "w",
            "operation": {"op": "CLICK", "value": ""}, "pos_candidates": [],
            "neg_candidates": []}
    path = tmp_path / "steps.jsonl"
    path.write_bytes(orjson.dumps(line) + b"\n")
    issues = IssueLog()
    assert len(list(iter_steps(path, issues=issues))) == 1
    assert [i.field for i in issues] == ["confirmed_task"]


def test_empty_log_folder_says_so(tmp_path):
    dataset = tmp_path / "d.json"
    dataset.write_text("[]")
    urls = tmp_path / "u.json"
    urls.write_text('{"shopping": "http://shop.test"}')
    logs = tmp_path / "logs"
    logs.mkdir()
    res = runner.invoke(app, ["eval", "webarena-verified", "--dataset", str(dataset),
                              "--logs", str(logs), "--site-urls", str(urls), "--out",
                              str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2 and "no task log folders" in " ".join(res.output.split())
    res = runner.invoke(app, ["import", "webarena-verified", "--dataset", str(dataset),
                              "--logs", str(logs), "--out", str(tmp_path / "run"), "--json"])
    summary = orjson.loads(res.stdout)
    # Nothing imported is not a success, and leaves no run behind.
    assert res.exit_code == 1 and summary["warnings"] == 1 and summary["imported"] == 0
    assert summary["problems"][0]["message"] == "nothing to import: no records found"
    assert not (tmp_path / "run").exists()
