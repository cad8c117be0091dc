from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.store import RunStore

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "webarena-verified"


def _run(*args: str, code: int = 0) -> dict:
    result = runner.invoke(app, ["import", *args, "--json"])
    assert result.exit_code == code, result.output
    return orjson.loads(result.stdout)


def _show(run: Path) -> dict:
    result = runner.invoke(app, ["runs", "show", str(run), "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_help_has_examples():
    for cmd in ("browser-use", "webvoyager", "mind2web", "webarena-verified"):
        result = runner.invoke(app, ["import", cmd, "--help"])
        assert result.exit_code == 0 and "Example:" in result.output, cmd


def test_browser_use_end_to_end(tmp_path, bu_old, bu_new, bu_corrupt, png):
    run = tmp_path / "run"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    s = _run("browser-use", str(bu_old), str(bad), str(bu_new), str(bu_corrupt),
             "--out", str(run))
    assert (s["imported"], s["steps"], s["steps_without_action"]) == (3, 27, 4)
    assert s["errors"] == 4 and s["warnings"] == 2
    first = s["problems"][0]
    assert first["level"] == "error" and first["file"] == str(bad)
    assert "invalid JSON" in first["message"]
    assert {(p["record"], p["field"]) for p in s["problems"][1:4]} == {
        ("history[1]", None), ("history[2]", "state"), ("history[3]", "model_output.action")}
    shown = _show(run)
    assert shown["n_trajectories"] == 3 and shown["corrupt"] == []
    assert {r["agent"] for r in shown["trajectories"]} == {"browser-use"}
    assert shown["info"]["source"] == "browser-use"
    folder = run / "trajectories" / "shoes__browser-use__t0"
    assert (folder / "step-001.png").read_bytes() == png(2)
    with RunStore.open(run) as store:
        traj = store.load_trajectory("run42__browser-use__t0")
    assert traj.answer == '{"hotel":"Le Petit","price":180}'
    # Again: nothing new; with --replace, written again.
    again = _run("browser-use", str(bu_old), "--out", str(run))
    assert (again["imported"], again["already_in_run"]) == (0, 1)
    again = _run("browser-use", str(bu_old), "--out", str(run), "--replace")
    assert again["imported"] == 1 and _show(run)["n_trajectories"] == 3


def test_browser_use_task_options_and_trials(tmp_path, bu_old):
    run = tmp_path / "run"
    s = _run("browser-use", str(bu_old), str(bu_old), "--task", "Buy shoes", "--task-id",
             "shoes-1", "--agent", "bu-gpt", "--out", str(run))
    assert s["imported"] == 2
    rows = _show(run)["trajectories"]
    assert sorted((r["task_id"], r["agent"], r["trial"]) for r in rows) == [
        ("shoes-1", "bu-gpt", 0), ("shoes-1", "bu-gpt", 1)]


def test_webvoyager_end_to_end(tmp_path, wv_results, wv_tasks):
    run = tmp_path / "run"
    s = _run("webvoyager", str(wv_results), "--tasks", str(wv_tasks), "--out", str(run))
    assert (s["imported"], s["steps"], s["errors"]) == (2, 10, 2)
    assert sorted(p["record"] or "" for p in s["problems"]) == ["", "line 3"]
    shown = _show(run)
    assert sorted(r["site"] for r in shown["trajectories"]) == ["Amazon", "Google Map"]
    folder = run / "trajectories" / "Google_Map--1__webvoyager__t0"
    assert sorted(p.name for p in folder.iterdir()) == ["final.png", "step-000.png",
                                                       "trajectory.json"]


def test_mind2web_end_to_end(tmp_path, m2w_file):
    run = tmp_path / "run"
    s = _run("mind2web", str(m2w_file.parent), "--out", str(run), "--limit", "2")
    assert (s["imported"], s["steps"], s["steps_without_action"], s["errors"]) == (2, 7, 1, 1)
    rows = _show(run)["trajectories"]
    assert sorted((r["task_id"], r["agent"], r["n_steps"]) for r in rows) == [
        ("aaaa-1111", "mind2web-reference", 6), ("bbbb-2222", "mind2web-reference", 1)]


def _wav_dataset(tmp_path) -> Path:
    tasks = [{"task_id": 1, "intent": "What is the top product?", "sites": ["shopping_admin"],
              "start_urls": ["__SHOPPING_ADMIN__/admin"], "revision": 2,
              "eval": [{"evaluator": "AgentResponseEvaluator", "results_schema": {},
                        "expected": {"task_type": "retrieve", "status": "SUCCESS",
                                     "retrieved_data": ["Sprite"]}}]},
             {"task_id": 2, "intent": "Second", "sites": ["gitlab"], "eval": []},
             {"task_id": 3, "eval": []}]
    path = tmp_path / "tasks.json"
    path.write_bytes(orjson.dumps(tasks))
    return path


def test_webarena_verified_end_to_end(tmp_path):
    dataset = _wav_dataset(tmp_path)
    logs = tmp_path / "logs"
    for tid in ("1", "2", "3", "99"):
        (logs / tid).mkdir(parents=True)
        (logs / tid / "agent_response.json").write_text('{"task_type": "RETRIEVE", '
                                                        '"status": "SUCCESS"}')
    (logs / "1" / "network.har").write_text('{"log": {"entries": []}}')
    (logs / "3" / "network.har").write_text('{"log": {"entries": []}}')
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", str(dataset), "--logs", str(logs),
             "--out", str(run))
    assert (s["imported"], s["errors"]) == (1, 3)
    messages = sorted(p["message"] for p in s["problems"])
    assert messages == ["missing network.har", "missing required field",
                        f"no task with id 99 in {dataset}"]
    with RunStore.open(run) as store:
        traj = store.load_trajectory("1__imported__t0")
    assert traj.network_trace == "network.har" and traj.task.site == "shopping_admin"
    folder = run / "trajectories" / "1__imported__t0"
    assert {p.name for p in folder.iterdir()} == {"network.har", "agent_response.json",
                                                  "trajectory.json"}


def test_nothing_imported_exits_1(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[")
    s = _run("browser-use", str(bad), "--out", str(tmp_path / "run"), code=1)
    assert s["imported"] == 0 and s["errors"] == 1
    result = runner.invoke(app, ["import", "webvoyager", str(tmp_path / "nope"), "--out",
                                 str(tmp_path / "run")])
    assert result.exit_code == 1 and "not a folder" in " ".join(result.output.split())


@pytest.mark.skipif(not (FIXTURES / "agent_logs").is_dir(), reason="shared fixtures absent")
def test_webarena_verified_real_logs_rescore_to_reference(tmp_path):
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping_admin": "http://192.168.1.35:7780"}')
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", str(FIXTURES / "webarena-verified.json"),
             "--logs", str(FIXTURES / "agent_logs"), "--site-urls", str(urls), "--out", str(run))
    assert (s["imported"], s["errors"]) == (2, 0)
    result = runner.invoke(app, ["eval", "--run", str(run)])
    assert result.exit_code == 0, result.output
    with RunStore.open(run) as store:
        for tid in ("107", "108"):
            expected = orjson.loads((FIXTURES / "agent_logs" / tid / "eval_result.json")
                                    .read_bytes())["score"]
            scores = store.scores(f"{tid}__imported__t0")
            assert [x.value for x in scores] == [expected]
