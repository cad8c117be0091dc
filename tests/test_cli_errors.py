"""A user's mistake gets a clear message and exit code 2 from the real `webtraj` command,
never a Python traceback; an unexpected exception is reported as a bug (traceback only
under --debug / WEBTRAJ_DEBUG=1); text from data is never eaten by Rich markup."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.cli.run import _check_task_ids
from webtraj.model import RunInfo, Task
from webtraj.store import RunStore

WEBTRAJ = Path(sys.executable).with_name("webtraj")


def webtraj(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    full_env.pop("WEBTRAJ_DEBUG", None)
    if env and "WEBTRAJ_DEBUG" in env:
        full_env["WEBTRAJ_DEBUG"] = env["WEBTRAJ_DEBUG"]
    return subprocess.run([str(WEBTRAJ), *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, cwd=cwd)


def flat(text: str) -> str:
    return " ".join(text.split())


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr


def test_unknown_agent_is_a_usage_error(tmp_path):
    proc = webtraj("run", "--suite", "booking", "--agent", "foo", "--out", str(tmp_path / "r"))
    no_traceback(proc)
    assert proc.returncode == 2
    assert "unknown agent 'foo'; choose one of" in flat(proc.stderr)


def test_missing_extra_names_the_extra_with_brackets(tmp_path):
    # A `ray` package that cannot be imported, as when the extra is not installed.
    fake = tmp_path / "fake" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("No module named \'ray\'")\n')
    proc = webtraj("run", "--suite", "booking", "--agent", "heuristic", "--executor", "ray",
                   "--out", str(tmp_path / "r"), env={"PYTHONPATH": str(tmp_path / "fake")})
    no_traceback(proc)
    assert proc.returncode == 2
    assert "pip install 'webtraj[ray]'" in flat(proc.stderr)


def test_sites_serve_on_a_busy_port():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = webtraj("sites", "serve", "--port-base", str(port), "--today", "2026-01-15")
    no_traceback(proc)
    assert proc.returncode == 2
    err = flat(proc.stderr)
    assert f"127.0.0.1:{port}" in err and "--port-base" in err


def _wav_log(folder: Path, response: bytes) -> None:
    folder.mkdir(parents=True)
    (folder / "agent_response.json").write_bytes(response)
    (folder / "network.har").write_bytes(orjson.dumps({"log": {"entries": [{
        "request": {"url": "http://shop.test/", "method": "GET", "headers": []},
        "response": {"status": 200}}]}}))


def test_non_utf8_response_does_not_stop_the_import_batch(tmp_path):
    task = {"intent": "Say hi", "sites": ["shopping"],
            "eval": [{"evaluator": "AgentResponseEvaluator", "results_schema": {},
                      "expected": {"task_type": "retrieve", "status": "SUCCESS",
                                   "retrieved_data": ["hi"]}}]}
    dataset = tmp_path / "d.json"
    dataset.write_bytes(orjson.dumps([{"task_id": 1, **task}, {"task_id": 2, **task}]))
    logs = tmp_path / "logs"
    _wav_log(logs / "1", b'{"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": '
                         b'["h\xffi"]}')
    _wav_log(logs / "2", b'{"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": '
                         b'["hi"]}')
    proc = webtraj("import", "webarena-verified", "--dataset", str(dataset), "--logs", str(logs),
                   "--out", str(tmp_path / "run"), "--json")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    summary = orjson.loads(proc.stdout)
    assert (summary["imported"], summary["errors"]) == (1, 1)
    [problem] = summary["problems"]
    assert problem["file"] == str(logs / "1" / "agent_response.json")
    assert "not UTF-8" in problem["message"]


def test_runs_list_shows_markup_like_commands_verbatim(tmp_path):
    command = "webtraj run --out [/] --x [bold]y[/bold] [ray]"
    RunStore.create(tmp_path / "runs" / "a", RunInfo(name="a", command=command)).close()
    proc = webtraj("runs", "list", str(tmp_path / "runs"), env={"COLUMNS": "300"})
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert command in proc.stdout


def test_empty_tasks_file_and_unknown_task_ids_are_usage_errors(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    proc = webtraj("run", "--tasks", str(empty), "--agent", "heuristic",
                   "--out", str(tmp_path / "r1"))
    no_traceback(proc)
    assert proc.returncode == 2 and "no tasks in this file" in flat(proc.stderr)

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(Task(task_id="t1", intent="x", start_url="http://127.0.0.1:9/")
                      .to_json_bytes(indent=False) + b"\n")
    proc = webtraj("run", "--tasks", str(tasks), "--agent", "heuristic", "--task-ids",
                   "nope,nada", "--out", str(tmp_path / "r2"))
    no_traceback(proc)
    assert proc.returncode == 2
    err = flat(proc.stderr)
    assert "--task-ids names no" in err and "nope, nada" in err


def test_unknown_ids_among_known_ones_warn(capsys):
    from webtraj.execute.run import RunPlan

    task = Task(task_id="t1", intent="x")
    _check_task_ids(("t1", "zz"), RunPlan(tasks=(task,), specs=(), skipped=1,
                                          unknown_ids=("zz",)))
    err = flat(capsys.readouterr().err)
    assert "warning: 1 of the --task-ids unknown: zz" in err
    _check_task_ids(("t1",), RunPlan(tasks=(task,), specs=(), skipped=1))
    assert capsys.readouterr().err == ""


def test_a_bug_is_reported_as_a_bug_with_traceback_only_under_debug(tmp_path, monkeypatch):
    RunStore.create(tmp_path / "r", RunInfo(name="r")).close()

    def broken(store, **options):  # noqa: ANN001, ANN003, ARG001
        raise KeyError("boom [x]")

    monkeypatch.setattr("webtraj.cli.runs.summarize", broken)
    runner = CliRunner()
    monkeypatch.delenv("WEBTRAJ_DEBUG", raising=False)
    res = runner.invoke(app, ["runs", "show", str(tmp_path / "r")])
    assert res.exit_code == 1 and not isinstance(res.exception, KeyError)
    out = flat(res.output)
    assert "internal error: KeyError: 'boom [x]'" in out and "bug in webtraj" in out
    assert "Traceback" not in res.output and "--debug" in out
    res = runner.invoke(app, ["--debug", "runs", "show", str(tmp_path / "r")])
    assert res.exit_code == 1 and "Traceback" in res.output and "broken" in res.output
    res = runner.invoke(app, ["runs", "show", str(tmp_path / "r")], env={"WEBTRAJ_DEBUG": "1"})
    assert res.exit_code == 1 and "Traceback" in res.output


@pytest.mark.parametrize("args", [["runs", "show", "/nonexistent/run"],
                                  ["eval", "--run", "/nonexistent/run"]])
def test_bad_paths_are_usage_errors(args):
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "error:" in res.output and "Traceback" not in res.output


def test_a_closed_pipe_is_not_a_bug():
    """`webtraj run --help | head -60`: the reader goes away mid-output; no 'internal
    error'."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.Popen([str(WEBTRAJ), "run", "--help"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    for _ in range(60):
        proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert b"internal error" not in err and b"Traceback" not in err, err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "[::]"])
def test_an_unspecified_sandbox_host_is_a_usage_error(tmp_path, host):
    """0.0.0.0 would serve the sites on every interface but record URLs that lead nowhere."""
    proc = webtraj("run", "--suite", "booking", "--agent", "heuristic", "--sandbox-host", host,
                   "--out", str(tmp_path / "r"))
    no_traceback(proc)
    assert proc.returncode == 2
    assert f"--sandbox-host {host}:" in flat(proc.stderr)
    assert "names no machine" in flat(proc.stderr)
    assert not (tmp_path / "r").exists()


def test_library_runs_refuse_an_unspecified_sandbox_host_too(tmp_path):
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.model import InputError
    from webtraj.sites.sandbox import reachable_sandbox_host

    assert reachable_sandbox_host("10.1.2.3") == "10.1.2.3"
    assert reachable_sandbox_host("node-7.cluster") == "node-7.cluster"
    config = RunConfig(suite="booking", agent="heuristic", sandbox_host="0.0.0.0", limit=1)
    with pytest.raises(InputError, match="sandbox_host.*names no machine"), \
            execute_run(config, tmp_path / "r"):
        pass


def test_a_damaged_index_is_named_by_its_file(tmp_path):
    """`runs upgrade` (a writer) and `runs show` (a reader) on an index that is not a SQLite
    file, or is one cut short, name the file and say what to do: exit 2, no traceback."""
    good = tmp_path / "good"
    with RunStore.create(good, RunInfo(name="good")):
        pass
    index = (good / "index.sqlite").read_bytes()
    for name, content in (("junk", b"garbage, not a database" * 10), ("cut", index[:3000])):
        run = tmp_path / name
        with RunStore.create(run, RunInfo(name=name)):
            pass
        for extra in run.glob("index.sqlite-*"):
            extra.unlink()
        (run / "index.sqlite").write_bytes(content)
        for args in (("runs", "upgrade", str(run)), ("runs", "show", str(run))):
            res = CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})
            out = flat(res.output)
            assert res.exit_code == 2, (name, args, res.output)
            assert f"{run / 'index.sqlite'}: the run's index is damaged" in out, out
            assert f"webtraj runs upgrade {run}" in out and "Traceback" not in out


def test_an_instance_id_with_seeds_is_refused(tmp_path):
    """`miniwob/click-button/0` carries its seed: with `--seeds` too, the run cannot know
    which episodes were meant, so it refuses (exit 2, the reason, nothing written) instead
    of running the one instance."""
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", "--suite", "miniwob", "--task-ids",
                                   "click-button,miniwob/click-button/0", "--seeds", "0-4",
                                   "--agent", "heuristic", "--out", str(out)],
                             env={"COLUMNS": "300"})
    text = flat(res.output)
    assert res.exit_code == 2, text
    assert "--task-ids miniwob/click-button/0 names one instance, its seed included, so " \
        "--seeds cannot apply to it" in text and "Traceback" not in text
    assert not out.exists()
