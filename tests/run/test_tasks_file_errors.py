"""Bad records of a tasks file are named by file, line and field, also when every record is
bad, and a task without `start_url` is named by its line (issue 26, point 7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from webtraj.evaluate.registry import check_task
from webtraj.formats.tasks import load_tasks
from webtraj.model import Task

WEBTRAJ = Path(sys.executable).with_name("webtraj")
GOOD = Task(task_id="ok", intent="Find a hotel", start_url="http://127.0.0.1:9/")
NO_START = Task(task_id="nowhere", intent="Find a hotel")


def _lines(*records: bytes | Task) -> bytes:
    return b"\n".join(r.to_json_bytes(indent=False) if isinstance(r, Task) else r
                      for r in records) + b"\n"


def test_every_bad_record_is_named_when_all_are_bad(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(_lines(b'{"task_id": "a"}', b"", b'{"task_id": "b", "intent": 3}',
                             NO_START, b"{not json"))
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.run([str(WEBTRAJ), "run", "--tasks", str(tasks), "--agent", "replay",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=120, env=env)
    err = " ".join(proc.stderr.split())
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert str(tasks) in err and "its 4 records are all bad" in err
    assert "line 1, field 'intent': missing required field" in err
    assert "line 3, field 'intent'" in err
    assert "line 4, field 'start_url': task 'nowhere' has no start_url" in err
    assert "line 5: invalid JSON" in err


def test_task_without_start_url_is_named_by_file_and_line(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(_lines(GOOD, NO_START))
    loaded, errors = load_tasks(tasks, need_start_url=True)
    assert [t.task_id for t in loaded] == ["ok"]
    [error] = errors
    assert (error.file, error.record, error.field) == (str(tasks), "line 2", "start_url")
    assert str(error).startswith(f"{tasks}: record line 2: field 'start_url': ")
    # Readers that need no start URL (import, eval, tasks tools) keep such a task.
    assert [t.task_id for t in load_tasks(tasks)[0]] == ["ok", "nowhere"]

    listed = tmp_path / "tasks.json"
    listed.write_bytes(b"[" + GOOD.to_json_bytes(indent=False) + b", {\"task_id\": 1}]")
    loaded, [error] = load_tasks(listed)
    assert [t.task_id for t in loaded] == ["ok"]
    assert error.record == "item 1" and error.field in ("task_id", "intent")


def test_a_bad_evaluator_config_is_refused_at_load(tmp_path):
    """A task whose evaluator config cannot be built is a bad record of the file, named by
    line and field, before any episode: not an error score for every trajectory of it."""
    network = GOOD.model_copy(update={"task_id": "net", "evaluators": (
        {"evaluator": "NetworkEventEvaluator"},)})  # without its required `expected`
    unknown = GOOD.model_copy(update={"task_id": "typo", "evaluators": (
        {"evaluator": "constraints", "judge": "rule"}, {"evaluator": "miniwob", "chek": 1})})
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(_lines(GOOD, network, unknown))
    loaded, errors = load_tasks(tasks, check=check_task)
    assert [t.task_id for t in loaded] == ["ok"]
    assert [(e.file, e.record, e.field) for e in errors] == [
        (str(tasks), "line 2", "evaluators[0].expected"),
        (str(tasks), "line 3", "evaluators[1].chek")]
    assert "NetworkEventEvaluator" in errors[0].message
    assert [t.task_id for t in load_tasks(tasks)[0]] == ["ok", "net", "typo"]  # no check

    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_bytes(_lines(network))
    proc = subprocess.run([str(WEBTRAJ), "run", "--tasks", str(only_bad), "--agent", "replay",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"})
    err = " ".join(proc.stderr.split())
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert str(only_bad) in err and "line 1, field 'evaluators[0].expected'" in err
    assert not (tmp_path / "run" / "trajectories").exists()
