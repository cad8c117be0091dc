"""One reader of run artifacts outside the viewer too (`store.files`): a run folder shared as a
tarball may hold a symlinked network.har or a trajectory.json naming an absolute
`network_trace`; the WebArena-Verified export leaves that task out with the reason (the
submission never carries the outside file), `eval --run`'s scorers leave their checks unscored
as errors with the reason, and the store (what curation, the importers and every command
re-read) refuses a linked trajectory.json, naming it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from factories import make_trajectory
from webtraj.cli.app import app
from webtraj.model import RunInfo
from webtraj.store import RunStore
from webtraj.store.reader import parse_chunk, read_chunk

MARK = "outside-the-run-7f3a"


def _har(url: str) -> bytes:
    entry = {"startedDateTime": "2026-01-15T10:00:00.000Z", "time": 1,
             "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1",
                         "headers": [], "queryString": [], "cookies": [], "headersSize": -1,
                         "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                          "headers": [], "cookies": [], "redirectURL": "", "headersSize": -1,
                          "bodySize": 0, "content": {"size": 0, "mimeType": "text/html"}},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
                               "entries": [entry]}}).encode()


def _run(tmp_path: Path) -> tuple[Path, Path]:
    """Tasks 1 (its own HAR), 2 (network.har a link to a file outside the run) and 3 (an
    absolute network_trace naming that file)."""
    outside = tmp_path / "private" / "outside.har"
    outside.parent.mkdir()
    outside.write_bytes(_har(f"http://127.0.0.1:9/{MARK}"))
    root = tmp_path / "run"
    with RunStore.create(root, RunInfo(name="run", site_urls={
            "reddit": "http://127.0.0.1:9"})) as store:
        for tid, trace in (("1", "network.har"), ("2", "network.har"), ("3", str(outside))):
            traj = make_trajectory(tid, agent="a").model_copy(update={
                "network_trace": trace, "answer": '{"task_type": "NAVIGATE"}'})
            artifacts = {"network.har": _har("http://127.0.0.1:9/own")} if tid == "1" else {}
            folder = store.add_trajectory(traj, artifacts)
            if tid == "2":
                os.symlink(outside, folder / "network.har")
    return root, outside


def test_export_and_scorers_never_read_outside_the_trajectory_folder(tmp_path):
    root, _ = _run(tmp_path)
    sub = tmp_path / "submission"
    res = CliRunner().invoke(app, ["export", "webarena-verified", str(root), "--out", str(sub)],
                             env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    # Only task 1 is written; 2 and 3 are left out, each with why.
    assert sorted(p.name for p in sub.iterdir() if p.is_dir()) == ["1"]
    for path in sub.rglob("*"):
        assert path.is_dir() or MARK.encode() not in path.read_bytes(), path
    err = " ".join(res.stderr.split())
    two, three = err.split("task 2:")[1], err.split("task 3:")[1]
    assert two.startswith(" network trace left out:") and "network.har: not read: a symbolic " \
        "link inside the run" in two.split("task 3:")[0], err
    assert three.startswith(" network trace left out:") and "not read: not a relative file " \
        "name" in three.split("task 2:")[0], err

    # eval --run: the scorer that reads the HAR leaves the linked and the absolute ones
    # unscored as errors, naming why; it reads task 1's own HAR.
    res = CliRunner().invoke(app, ["eval", "--run", str(root), "--evaluator", "miniwob"])
    assert res.exit_code == 0, res.output
    with RunStore.open(root) as store:
        scores = {t.task.task_id: store.scores(t.trajectory_id, evaluator="miniwob")
                  for t in store.iter_trajectories()}
    for tid, why in (("2", "a symbolic link inside the run"), ("3", "not a relative file")):
        [score] = scores[tid]
        assert score.value is None and score.error and why in (score.reason or ""), score
    [own] = scores["1"]
    assert "never started its episode" in (own.reason or ""), own


def test_store_and_curation_refuse_a_linked_trajectory_json(tmp_path):
    root, _ = _run(tmp_path)
    stranger = tmp_path / "private" / "trajectory.json"
    stranger.write_bytes(make_trajectory("1", agent="a").model_copy(update={
        "answer": MARK}).to_json_bytes())
    target = root / "trajectories" / make_trajectory("1", agent="a").trajectory_id
    (target / "trajectory.json").unlink()
    os.symlink(stranger, target / "trajectory.json")
    with RunStore.open(root) as store:
        errors: list = []
        trajs = list(store.iter_trajectories(errors=errors))
    assert sorted(t.task.task_id for t in trajs) == ["2", "3"]
    [bad] = errors
    assert "a symbolic link inside the run" in str(bad.error)
    assert str(target / "trajectory.json") in str(bad.error)
    # What curation reads (a chunk of the run) refuses it the same way.
    loaded = {x.trajectory_id: x for x in parse_chunk(read_chunk(
        root, [target.name], ["constraints:rule"]))}
    assert loaded[target.name].trajectory is None
    assert "a symbolic link inside the run" in (loaded[target.name].error or "")


def test_prompt_images_are_read_only_inside_the_run(tmp_path):
    """What curation and the agents send a vision model: a run's trajectory folder that is a
    link (to a folder of someone's pictures) is refused; a screenshot never kept is none."""
    import pytest

    from webtraj.agents.prompt_builder import screenshot_bytes
    from webtraj.model import InputError, Observation

    elsewhere = tmp_path / "private"
    elsewhere.mkdir()
    (elsewhere / "step-000.png").write_bytes(MARK.encode())
    (tmp_path / "run" / "trajectories").mkdir(parents=True)
    folder = tmp_path / "run" / "trajectories" / "t1"
    os.symlink(elsewhere, folder)
    obs = Observation(url="http://127.0.0.1:9/", axtree="", screenshot="step-000.png")
    with pytest.raises(InputError, match="reached through a link"):
        screenshot_bytes(obs, folder)
    own = tmp_path / "run" / "trajectories" / "t2"
    own.mkdir()
    assert screenshot_bytes(obs, own) is None
    (own / "step-000.png").write_bytes(b"png")
    assert screenshot_bytes(obs, own) == b"png"
