from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.model import Trajectory
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
    # "Google Map--1" has a space: the id is made plain and carries a digest of the exact id.
    folder = run / "trajectories" / Trajectory.make_id("Google Map--1", "webvoyager", 0)
    assert folder.name.startswith("Google_Map--1__webvoyager__t0-")
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
    har = ('{"log": {"entries": [{"request": {"url": "http://x/", "method": "GET", '
           '"headers": []}, "response": {"status": 200}}]}}')
    (logs / "1" / "network.har").write_text(har)
    (logs / "3" / "network.har").write_text(har)
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", str(dataset), "--logs", str(logs),
             "--out", str(run))
    assert (s["imported"], s["errors"]) == (1, 3)
    messages = sorted(p["message"] for p in s["problems"])
    assert messages == ["missing required field",
                        "no network.har (or trace.zip) in the log folder",
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
    assert result.exit_code == 2 and "not a folder" in " ".join(result.output.split())


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


@pytest.mark.skipif(not (FIXTURES / "agent_logs").is_dir(), reason="shared fixtures absent")
@pytest.mark.parametrize("damage", ["har", "response"])
def test_webarena_verified_non_utf8_keeps_the_verdict(tmp_path, damage):
    """Bad bytes are an error by both paths: the importer no longer stores a U+FFFD copy
    that `eval --run` would then score."""
    import shutil

    logs = tmp_path / "logs"
    shutil.copytree(FIXTURES / "agent_logs" / "108", logs / "108")
    shutil.copytree(FIXTURES / "agent_logs" / "107", logs / "107")
    name = "network.har" if damage == "har" else "agent_response.json"
    path = logs / "108" / name
    path.chmod(0o644)
    data = path.read_bytes()
    cut = data.index(b'"', 200 if damage == "har" else 5) + 1  # inside a string value
    path.write_bytes(data[:cut] + b"\xff\xfe" + data[cut:])
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping_admin": "http://192.168.1.35:7780"}')
    dataset = str(FIXTURES / "webarena-verified.json")
    direct = runner.invoke(app, ["eval", "webarena-verified", "--dataset", dataset, "--logs",
                                 str(logs), "--site-urls", str(urls), "--out",
                                 str(tmp_path / "o.jsonl")])
    assert direct.exit_code == 0, direct.output
    lines = {x["task_id"]: x for x in map(orjson.loads,
                                          (tmp_path / "o.jsonl").read_bytes().splitlines())}
    assert lines["108"]["status"] == "error" and "UTF-8" in lines["108"]["error"]
    assert lines["107"]["status"] == "failure"
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", dataset, "--logs", str(logs), "--site-urls",
             str(urls), "--out", str(run))
    assert (s["imported"], s["errors"]) == (1, 1)
    assert s["problems"][0]["file"] == str(path) and "UTF-8" in s["problems"][0]["message"]
    assert runner.invoke(app, ["eval", "--run", str(run)]).exit_code == 0
    with RunStore.open(run) as store:
        assert [r.trajectory_id for r in store.rows()] == ["107__imported__t0"]
        assert [x.value for x in store.scores("107__imported__t0")] == [0.0]


def test_webarena_verified_check_on_a_redacted_cookie_is_unscored_not_scored(tmp_path):
    """A run never stores the Cookie header, so `eval --run` cannot judge a check on it:
    unscored with the reason (the direct evaluator, reading the logs, still decides)."""
    task = {"task_id": 5, "intent": "Route by car", "sites": ["shopping"], "eval": [
        {"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
         "expected": {"task_type": "NAVIGATE", "status": "SUCCESS", "retrieved_data": None}},
        {"evaluator": "NetworkEventEvaluator", "ignored_query_params_patterns": [".*"],
         "expected": {"url": "__SHOPPING__/route/a", "http_method": "GET",
                      "headers": {"Cookie": "^(?!.*engine=bicycle).*$"}}}]}
    dataset = tmp_path / "d.json"
    dataset.write_bytes(orjson.dumps([task]))
    logs = tmp_path / "logs" / "5"
    logs.mkdir(parents=True)
    (logs / "agent_response.json").write_text(
        '{"task_type": "NAVIGATE", "status": "SUCCESS", "retrieved_data": null}')
    (logs / "network.har").write_bytes(orjson.dumps({"log": {"entries": [{
        "request": {"url": "http://shop.test/route/a", "method": "GET", "headers": [
            {"name": "Cookie", "value": "session=1; engine=bicycle"},
            {"name": "Accept", "value": "text/html"}]},
        "response": {"status": 200}}]}}))
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping": "http://shop.test"}')
    out = tmp_path / "o.jsonl"
    res = runner.invoke(app, ["eval", "webarena-verified", "--dataset", str(dataset), "--logs",
                              str(tmp_path / "logs"), "--site-urls", str(urls), "--out",
                              str(out)])
    assert res.exit_code == 0, res.output
    assert orjson.loads(out.read_bytes())["status"] == "failure"  # the cookie says bicycle
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", str(dataset), "--logs", str(tmp_path / "logs"),
             "--site-urls", str(urls), "--out", str(run))
    assert (s["imported"], s["warnings"]) == (1, 1)
    assert "header Cookie" in s["problems"][0]["message"]
    assert runner.invoke(app, ["eval", "--run", str(run)]).exit_code == 0
    with RunStore.open(run) as store:
        scores = {x.evaluator: x for x in store.scores("5__imported__t0")}
    [net] = [x for name, x in scores.items() if name.startswith("NetworkEventEvaluator[")]
    assert net.value is None and "redacted" in net.reason  # before: 1.0 against [REDACTED]


def test_webarena_verified_check_on_a_redacted_form_field_is_unscored(tmp_path):
    task = {"task_id": 6, "intent": "Change the password", "sites": ["shopping"], "eval": [
        {"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
         "expected": {"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": None}},
        {"evaluator": "NetworkEventEvaluator", "expected": {
            "url": "__SHOPPING__/account/save", "http_method": "POST",
            "post_data": {"new_password": "hunter22", "name": "Ann"}}}]}
    dataset = tmp_path / "d.json"
    dataset.write_bytes(orjson.dumps([task]))
    logs = tmp_path / "logs" / "6"
    logs.mkdir(parents=True)
    (logs / "agent_response.json").write_text(
        '{"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": null}')
    (logs / "network.har").write_bytes(orjson.dumps({"log": {"entries": [{
        "request": {"url": "http://shop.test/account/save", "method": "POST", "headers": [],
                    "postData": {"mimeType": "application/x-www-form-urlencoded",
                                 "text": "new_password=wrong-one&name=Ann"}},
        "response": {"status": 200}}]}}))
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping": "http://shop.test"}')
    out = tmp_path / "o.jsonl"
    assert runner.invoke(app, ["eval", "webarena-verified", "--dataset", str(dataset), "--logs",
                               str(tmp_path / "logs"), "--site-urls", str(urls), "--out",
                               str(out)]).exit_code == 0
    assert orjson.loads(out.read_bytes())["status"] == "failure"
    run = tmp_path / "run"
    s = _run("webarena-verified", "--dataset", str(dataset), "--logs", str(tmp_path / "logs"),
             "--site-urls", str(urls), "--out", str(run))
    assert s["imported"] == 1 and "form field new_password" in s["problems"][0]["message"]
    assert runner.invoke(app, ["eval", "--run", str(run)]).exit_code == 0
    with RunStore.open(run) as store:
        net = {x.evaluator: x for x in store.scores("6__imported__t0")}[
            "NetworkEventEvaluator[POST __SHOPPING__/account/save]"]
    assert net.value is None and "redacted" in net.reason
