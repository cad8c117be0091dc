"""Importers read only files inside the folders being imported, and only images as
screenshots: a history naming /etc/hostname, ../../../../etc/passwd, a symlink out of the
folder or a text file as its screenshot gets a per-record error, and nothing is copied."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.formats.browser_use import load_history
from webtraj.formats.imported import ImportLog
from webtraj.formats.local_files import LocalFiles
from webtraj.formats.webvoyager import load_task_folder
from webtraj.model import InputError

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def _history(bu_new: Path, shot: str) -> Path:
    data = orjson.loads(bu_new.read_bytes())
    data["history"][1]["state"]["screenshot_path"] = shot
    bu_new.write_bytes(orjson.dumps(data))
    return bu_new


@pytest.mark.parametrize("shot", ["/etc/hostname", "../../../../etc/passwd",
                                  "screenshots/" + "../" * 15 + "etc/passwd"])
def test_browser_use_paths_outside_the_folder_are_record_errors(bu_new, shot):
    assert Path("/etc/passwd").is_file()
    log = ImportLog()
    item = load_history(_history(bu_new, shot), log=log)
    [err] = log.errors
    assert err.record == "history[1]" and err.field == "state.screenshot_path"
    assert "outside the folders being imported" in err.message
    secret = Path("/etc/passwd").read_bytes()
    assert all(isinstance(v, bytes) and v.startswith(PNG) and v != secret
               for v in item.artifacts.values())
    assert len(item.artifacts) == 1  # step_1.png, found by name in screenshots/


def test_browser_use_symlink_and_non_image(bu_new):
    shots = bu_new.parent / "screenshots"
    (shots / "step_2.png").unlink()
    (shots / "step_2.png").symlink_to("/etc/passwd")
    log = ImportLog()
    load_history(bu_new, log=log)
    assert [e.field for e in log.errors] == ["state.screenshot_path"]
    assert "outside" in log.errors[0].message
    (shots / "step_2.png").unlink()
    (shots / "step_2.png").write_text("just text, not a picture")
    log = ImportLog()
    load_history(bu_new, log=log)
    assert "not a PNG or JPEG image" in log.errors[0].message


def test_browser_use_explicit_folder_is_allowed(bu_new, tmp_path, png):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "shot.png").write_bytes(png(5))
    _history(bu_new, str(elsewhere / "shot.png"))
    log = ImportLog()
    load_history(bu_new, log=log)
    assert log.errors  # not given: refused
    log = ImportLog()
    item = load_history(bu_new, log=log, files=LocalFiles([bu_new.parent, elsewhere]))
    assert not log.errors and png(5) in item.artifacts.values()
    out = tmp_path / "run"
    res = runner.invoke(app, ["import", "browser-use", str(bu_new), "--files-from",
                              str(elsewhere), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert orjson.loads(res.stdout)["errors"] == 0


def test_cli_import_copies_no_local_file(bu_new, tmp_path):
    _history(bu_new, "../../../../etc/passwd")
    out = tmp_path / "run"
    res = runner.invoke(app, ["import", "browser-use", str(bu_new), "--out", str(out),
                              "--json"])
    assert res.exit_code == 0, res.output
    summary = orjson.loads(res.stdout)
    assert summary["errors"] == 1 and summary["problems"][0]["file"] == str(bu_new)
    secret = Path("/etc/passwd").read_bytes()
    for f in out.rglob("step-*"):
        assert f.read_bytes().startswith(PNG) and f.read_bytes() != secret


def test_webvoyager_screenshot_link_or_text_is_a_folder_error(wv_results, tmp_path):
    folder = wv_results / "taskGoogle Map--1"
    (folder / "screenshot1.png").unlink()
    (folder / "screenshot1.png").symlink_to("/etc/hostname")
    with pytest.raises(InputError, match="outside the folders being imported"):
        load_task_folder(folder)
    (folder / "screenshot1.png").unlink()
    (folder / "screenshot1.png").write_bytes(b"hello")
    with pytest.raises(InputError, match="not a PNG or JPEG") as info:
        load_task_folder(folder)
    assert info.value.field == "screenshot1.png"


def test_webarena_verified_log_files_linking_out_are_refused(tmp_path):
    wav = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "webarena-verified"
    if not wav.is_dir():
        pytest.skip("shared fixtures absent")
    logs = tmp_path / "logs"
    shutil.copytree(wav / "agent_logs" / "108", logs / "108")
    (logs / "108" / "agent_response.json").unlink()
    (logs / "108" / "agent_response.json").symlink_to(wav / "agent_logs" / "107" /
                                                      "agent_response.json")
    res = runner.invoke(app, ["import", "webarena-verified", "--dataset",
                              str(wav / "webarena-verified.json"), "--logs", str(logs),
                              "--out", str(tmp_path / "run"), "--json"])
    summary = orjson.loads(res.stdout)
    assert summary["imported"] == 0 and "outside" in summary["problems"][0]["message"]
