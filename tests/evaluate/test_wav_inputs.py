"""Bad input, the CLI batch, the registry and the importer."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.evaluate.protocol import EvalEnv
from webtraj.evaluate.registry import ConfigError, create
from webtraj.formats.har_reader import load_trace
from webtraj.model import InputError, Trajectory
from webtraj.suites.webarena_verified.evaluate import SiteUrls, evaluate_log_dir
from webtraj.suites.webarena_verified.logs import load_tasks, trajectory_from_log

SHOP = "http://shop.test:7770"
NAV_TASK = {
    "task_id": 1, "sites": ["shopping"], "intent": "Open product 1",
    "eval": [
        {"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
         "expected": {"task_type": "NAVIGATE", "status": "SUCCESS", "retrieved_data": None}},
        {"evaluator": "NetworkEventEvaluator", "expected": {"url": "__SHOPPING__/p/1"}},
    ],
}
ANSWER = '{"task_type": "NAVIGATE", "status": "SUCCESS", "retrieved_data": null}'


def write_log(root: Path, tid: str, entries, answer: str = ANSWER, raw: bytes | None = None):
    d = root / tid
    d.mkdir(parents=True)
    (d / "network.har").write_bytes(raw if raw is not None else orjson.dumps(
        {"log": {"version": "1.2", "entries": entries}}))
    (d / "agent_response.json").write_text(answer)
    return d


@pytest.fixture
def good_entries(mk):
    return [mk(SHOP + "/", nav=True), mk(SHOP + "/p/1", nav=True)]


def test_good_log(tmp_path, good_entries):
    d = write_log(tmp_path, "1", good_entries)
    v = evaluate_log_dir(NAV_TASK, d, site_urls=SiteUrls({"shopping": SHOP}))
    assert (v.status.value, v.score) == ("success", 1.0)


@pytest.mark.parametrize(("raw", "needle"), [
    (b"", "empty file"),
    (b'{"log": {"entries": [{"request": {"url": "x"', "truncated"),
    (b'{"log": {"entries": []}}', "no entries"),
    (b'{"entries": []}', "'log'"),
    (b'{"log": {"entries": [{"response": {"status": 200}}]}}', "record 0: field 'request'"),
])
def test_bad_har_is_a_task_error_naming_the_file(tmp_path, raw, needle):
    d = write_log(tmp_path, "1", None, raw=raw)
    v = evaluate_log_dir(NAV_TASK, d, site_urls=SiteUrls({"shopping": SHOP}))
    assert v.status.value == "error" and v.score is None
    assert needle in v.error and "network.har" in v.error


def test_unknown_config_key_is_a_task_error(tmp_path, good_entries):
    task = json.loads(json.dumps(NAV_TASK))
    task["eval"][1]["last_event"] = True
    d = write_log(tmp_path, "1", good_entries)
    v = evaluate_log_dir(task, d, site_urls=SiteUrls({"shopping": SHOP}))
    assert v.status.value == "error"
    assert "last_event" in v.error and "NetworkEventEvaluator" in v.error


def test_missing_site_url_is_a_task_error(tmp_path, good_entries):
    d = write_log(tmp_path, "1", good_entries)
    v = evaluate_log_dir(NAV_TASK, d, site_urls=SiteUrls({"gitlab": "http://g"}))
    assert v.status.value == "error" and "shopping" in v.error


def test_playwright_trace_zip(tmp_path, good_entries):
    lines = [{"type": "context-options"}] + [
        {"type": "resource-snapshot", "snapshot": e} for e in good_entries]
    d = tmp_path / "1"
    d.mkdir()
    with zipfile.ZipFile(d / "trace.zip", "w") as zf:
        zf.writestr("trace.network", b"\n".join(orjson.dumps(x) for x in lines))
    (d / "agent_response.json").write_text(ANSWER)
    assert len(load_trace(d / "trace.zip")) == 2
    v = evaluate_log_dir(NAV_TASK, d, site_urls=SiteUrls({"shopping": SHOP}))
    assert v.status.value == "success"


def test_real_session_har_loads(wav_fixtures):
    entries = load_trace(wav_fixtures / "shopping_admin_session.har")
    assert len(entries) == 358


def test_cli_batch_continues_and_counts(tmp_path, mk, good_entries):
    logs = tmp_path / "logs"
    write_log(logs, "1", good_entries)
    write_log(logs, "2", good_entries, answer="not json at all")
    write_log(logs, "3", None, raw=b"{\"log\": {\"entries\": [")
    write_log(logs, "4", [mk(SHOP + "/p/1", nav=True), mk(SHOP + "/p/2", nav=True)])
    tasks = [{**NAV_TASK, "task_id": i} for i in (1, 2, 3, 4)]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    (tmp_path / "urls.json").write_text(json.dumps({"__SHOPPING__": SHOP}))
    out = tmp_path / "res.jsonl"
    res = CliRunner().invoke(app, [
        "eval", "webarena-verified", "--dataset", str(tmp_path / "tasks.json"),
        "--logs", str(logs), "--site-urls", str(tmp_path / "urls.json"), "--out", str(out),
        "--task-ids", "1,2", "--task-ids", "3,4,9"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["task_id"], x["status"]) for x in lines] == [
        ("1", "success"), ("2", "failure"), ("3", "error"), ("4", "failure"), ("9", "error")]
    assert lines[0]["score"] == 1.0 and lines[2]["score"] is None
    ev = lines[0]["evaluators"][1]
    assert set(ev) >= {"name", "score", "status", "assertions"}
    assert "│     5 │       1 │       2 │     2 │" in res.output


def test_cli_names_its_dataset_and_reads_only_inside_logs(tmp_path, good_entries):
    """Without --dataset the tasks are the installed package's, and a missing id says so
    (not "None: no task ..."); a task folder linking out of --logs is an error, not read."""
    logs = tmp_path / "logs"
    write_log(logs, "1", good_entries)
    outside = write_log(tmp_path / "elsewhere", "2", good_entries)
    (logs / "2").symlink_to(outside, target_is_directory=True)
    (tmp_path / "tasks.json").write_text(json.dumps(
        [{**NAV_TASK, "task_id": i} for i in (1, 2)]))
    (logs / "site_urls.json").write_text(json.dumps({"__SHOPPING__": SHOP}))
    out = tmp_path / "res.jsonl"
    res = CliRunner().invoke(app, ["eval", "webarena-verified", "--dataset",
                                   str(tmp_path / "tasks.json"), "--logs", str(logs),
                                   "--out", str(out)], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    lines = {x["task_id"]: x for x in map(json.loads, out.read_text().splitlines())}
    assert lines["1"]["status"] == "success"
    assert lines["2"]["status"] == "error" and "outside the folders" in lines["2"]["error"]

    pytest.importorskip("webarena_verified")
    write_log(logs, "no-such-task", good_entries)
    res = CliRunner().invoke(app, ["eval", "webarena-verified", "--logs", str(logs),
                                   "--task-ids", "no-such-task"], env={"COLUMNS": "300"})
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "None" not in text, text
    assert "no task with id no-such-task in the installed webarena-verified package's " \
        "dataset" in text


def test_cli_help_has_example():
    res = CliRunner().invoke(app, ["eval", "webarena-verified", "--help"])
    assert res.exit_code == 0 and "Example: webtraj eval webarena-verified" in res.output


def test_importer_and_registry(tmp_path, good_entries, wav_fixtures):
    tasks = load_tasks(wav_fixtures / "webarena-verified.json")
    assert len(tasks) == 812
    t108 = next(t for t in tasks if t.task_id == "108")
    assert t108.evaluators[0]["evaluator"] == "AgentResponseEvaluator"
    assert t108.metadata["sites"] == ["shopping_admin"]
    traj = trajectory_from_log(t108, wav_fixtures / "agent_logs" / "108").trajectory
    assert traj.termination.value == "imported" and traj.network_trace == "network.har"
    assert "RETRIEVE" in traj.answer

    env = EvalEnv(site_urls={"shopping_admin": "http://192.168.1.35:7780/admin"})
    import asyncio

    evaluator = create(t108.evaluators[0], env)
    [score] = asyncio.run(evaluator.evaluate(traj, wav_fixtures / "agent_logs" / "108"))
    assert score.value == 1.0 and score.details["status"] == "success"

    t107 = next(t for t in tasks if t.task_id == "107")
    traj107 = trajectory_from_log(t107, wav_fixtures / "agent_logs" / "107").trajectory
    [s107] = asyncio.run(create(t107.evaluators[0], env).evaluate(
        traj107, wav_fixtures / "agent_logs" / "107"))
    assert s107.value == 0.0


def test_registry_rejects_unknown_keys_and_names():
    with pytest.raises(ConfigError, match="unknown option for NetworkEventEvaluator"):
        create({"evaluator": "NetworkEventEvaluator", "expected": {"url": "x"}, "bogus": 1})
    with pytest.raises(ConfigError, match="unknown evaluator"):
        create({"evaluator": "NoSuchEvaluator"})
    with pytest.raises(InputError, match="evaluator"):
        create({"expected": {}})


def test_registry_error_score_is_unscored(tmp_path, mk):
    from webtraj.suites.webarena_verified.logs import task_from_obj

    task = task_from_obj(NAV_TASK)
    d = write_log(tmp_path, "1", None, raw=b"")
    # The importer refuses this folder (as the direct evaluator does); a trajectory whose
    # HAR broke after import still scores as unscored with the reason.
    with pytest.raises(InputError, match="empty file"):
        trajectory_from_log(task, d)
    traj = Trajectory(trajectory_id="1__imported__t0", task=task, agent="imported",
                      answer=(d / "agent_response.json").read_text(),
                      network_trace="network.har")
    import asyncio

    [score] = asyncio.run(create(task.evaluators[1], EvalEnv(site_urls={"shopping": SHOP}))
                          .evaluate(traj, d))
    assert score.value is None and score.error and "empty file" in score.reason


def test_static_fast_path_agrees_with_urlparse():
    from urllib.parse import urlparse

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from webtraj.suites.webarena_verified.evaluate.events import STATIC_SUFFIXES, is_static_url

    part = st.text(alphabet="ab/.;?#=&:\t%jscpnwof2", max_size=12)

    @settings(max_examples=400, deadline=None)
    @given(st.sampled_from(["http://h", "https://h:1", "", "data:", "//h"]), part,
           st.sampled_from(["", ".js", ".css", ".png", ".woff2", ".JS"]), part)
    def check(prefix, a, suffix, b):
        url = prefix + "/" + a + suffix + b
        assert is_static_url(url) == urlparse(url).path.endswith(STATIC_SUFFIXES)

    check()
