"""WebArena-Verified tasks and agent logs as webtraj Tasks and Trajectories.

A task keeps its `eval` list as the Task's evaluator configs; the fields webtraj has no
slot for (sites, template, revision...) go to `metadata`. An agent log folder
`<task_id>/{network.har, agent_response.json}` becomes an imported trajectory whose answer
is the response text and whose network trace is the HAR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webtraj.formats.har_reader import load_trace, scan_har
from webtraj.formats.imported import ImportArtifacts, Imported
from webtraj.formats.local_files import LocalFiles
from webtraj.model import InputError, Task, Termination, Trajectory
from webtraj.model.jsonfile import read_json
from webtraj.model.redact import credential_name

_META = ("sites", "intent_template_id", "intent_template", "instantiation_dict", "revision",
         "start_urls")
TRACE_NAMES = ("network.har", "trace.zip")
RESPONSE = "agent_response.json"


def task_from_obj(obj: Any, *, file: str | Path | None = None,
                  record: str | int | None = None) -> Task:
    if not isinstance(obj, dict):
        raise InputError("expected a task object", file=file, record=record)
    if "task_id" not in obj:
        raise InputError("missing required field", file=file, record=record, field="task_id")
    tid = str(obj["task_id"])
    for key in ("intent", "eval"):
        if key not in obj:
            raise InputError("missing required field", file=file, record=tid, field=key)
    if not isinstance(obj["eval"], list):
        raise InputError("must be a list of evaluator configs", file=file, record=tid,
                         field="eval")
    sites = _strings(obj, "sites", file=file, record=tid)
    starts = _strings(obj, "start_urls", file=file, record=tid)
    return Task.from_obj({
        "task_id": tid,
        "intent": obj["intent"],
        "site": sites[0] if len(sites) == 1 else None,
        "start_url": starts[0] if starts else None,
        "evaluators": obj["eval"],
        "metadata": {"source": "webarena-verified",
                     **{k: obj[k] for k in _META if k in obj}},
    }, file=file, record=tid)


def _strings(obj: dict[str, Any], key: str, *, file: str | Path | None,
             record: str) -> list[str]:
    """An optional list of non-empty strings (the evaluators read sites and URLs as text)."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError("must be a list of non-empty strings", file=file, record=record,
                         field=key)
    return value


def redacted_checks(task: Task) -> list[str]:
    """The request headers and response cookies the task's network checks compare that a
    run stores redacted: `eval --run` cannot decide them (the direct evaluator can)."""
    out = []
    for cfg in task.evaluators:
        expected = cfg.get("expected")
        if cfg.get("evaluator") != "NetworkEventEvaluator" or not isinstance(expected, dict):
            continue
        for key, what, bare in (("headers", "header", False),
                                ("post_data", "form field", False),
                                ("query_params", "query parameter", True)):
            names = expected.get(key)
            if isinstance(names, dict):
                out += [f"{what} {n}" for n in names
                        if isinstance(n, str) and credential_name(n, bare_key=bare)]
        cookies = expected.get("response_cookies")
        if isinstance(cookies, dict):
            out += [f"response cookie {c}" for c in cookies]
    return out


def load_tasks(path: str | Path) -> list[Task]:
    """The dataset file (a JSON list of tasks)."""
    path = Path(path)
    data = read_json(path, expect=list, what="tasks")
    return [task_from_obj(t, file=path, record=i) for i, t in enumerate(data)]


@dataclass(frozen=True)
class AgentLog:
    """One task's agent log folder as both the importer and the direct evaluator see it."""

    folder: Path
    trace: Path  # network.har, else trace.zip
    response: str  # agent_response.json, strict UTF-8


def read_log_dir(log_dir: str | Path, *, files: LocalFiles | None = None) -> AgentLog:
    """The trace file and the response text of a log folder, read only inside `files`
    (default: the folder itself). Raises InputError naming the file: a missing trace, a
    response that is not UTF-8 text, a file that links outside the imported folders. The
    importer and `webtraj eval webarena-verified` both read logs here, so they agree."""
    log_dir = Path(log_dir)
    files = files if files is not None else LocalFiles([log_dir])
    trace = next((log_dir / n for n in TRACE_NAMES if (log_dir / n).exists()), None)
    if trace is None:
        if not log_dir.is_dir():
            raise InputError("no log folder for this task", file=log_dir)
        raise InputError("no network.har (or trace.zip) in the log folder", file=log_dir)
    if not files.inside(trace):
        raise InputError("links outside the folders being read; not read", file=trace)
    response_file = log_dir / RESPONSE
    raw = files.read(response_file, file=response_file)
    try:
        response = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", file=response_file) from None
    return AgentLog(log_dir, trace, response)


def check_trace(path: Path) -> None:
    """Read the whole trace as the direct evaluator does; InputError if it cannot."""
    if path.suffix == ".har":
        _, close = scan_har(path, lambda entry, index, reload: None)
        close()
    else:
        load_trace(path)


# The agent name an imported log is recorded under unless the import names one.
IMPORTED_AGENT = "imported"


def trajectory_from_log(task: Task, log_dir: str | Path, *, agent: str = IMPORTED_AGENT,
                        trial: int = 0, files: LocalFiles | None = None) -> Imported:
    """An agent log folder as a trajectory (no steps: the logs hold none), with the trace
    and the response as artifacts, byte for byte. Every input problem that would make the
    direct evaluator report an error raises InputError here, so importing never turns an
    error into a score."""
    files = files if files is not None else LocalFiles([log_dir])
    log = read_log_dir(log_dir, files=files)
    check_trace(log.trace)
    traj = Trajectory(
        trajectory_id=Trajectory.make_id(task.task_id, agent, trial),
        task=task, agent=agent, trial=trial, answer=log.response,
        network_trace=log.trace.name, termination=Termination.IMPORTED,
        metadata={"source": "webarena-verified", "log_dir": str(log.folder)},
    )
    artifacts: ImportArtifacts = {
        log.trace.name: files.read(log.trace, file=log.trace),
        RESPONSE: log.response.encode("utf-8"),
    }
    return Imported(traj, artifacts)


# -- the dataset as the installed reference package ships it ---------------------------------

SUBSETS = ("full", "hard")
_PACKAGE = "webarena_verified"
_DATASET = "assets/dataset/webarena-verified.json"
_SUBSET_FILES = {"hard": "subsets/webarena-verified-hard.json"}


def package_dataset_path() -> Path:
    """The tasks file inside the installed `webarena-verified` package (never a copy)."""
    from importlib.resources import files
    from importlib.util import find_spec

    if find_spec(_PACKAGE) is None:
        raise InputError("the WebArena-Verified tasks come from the reference package: "
                         "pip install webarena-verified (or webtraj[webarena])",
                         field="suite")
    path = Path(str(files(_PACKAGE).joinpath(_DATASET)))
    if not path.is_file():
        raise InputError("the installed webarena-verified package has no dataset file",
                         file=path)
    return path


def package_raw_tasks(subset: str = "full") -> list[dict[str, Any]]:
    """The dataset's raw task objects (as the reference evaluates them), of a subset."""
    if subset not in SUBSETS:
        raise InputError(f"unknown subset {subset!r}; choose one of {', '.join(SUBSETS)}",
                         field="subset")
    path = package_dataset_path()
    data = read_json(path, expect=list, what="tasks")
    if subset == "full":
        return data
    subset_path = path.parent / _SUBSET_FILES[subset]
    listed = read_json(subset_path, expect=dict, what="subset")
    ids = listed.get("task_ids")
    if not isinstance(ids, list):
        raise InputError("must be a list of task ids", file=subset_path, field="task_ids")
    wanted = {str(i) for i in ids}
    return [t for t in data if isinstance(t, dict) and str(t.get("task_id")) in wanted]


def package_tasks(subset: str = "full") -> list[Task]:
    """The dataset's tasks of a subset as webtraj Tasks (placeholders in start URLs)."""
    path = package_dataset_path()
    return [task_from_obj(t, file=path, record=t.get("task_id"))
            for t in package_raw_tasks(subset)]


# -- the agent's final answer as the response the evaluators read ----------------------------

_RESPONSE_KEYS = {"task_type", "performed_operation", "status", "retrieved_data",
                  "error_details"}


def agent_response_obj(answer: str | None) -> dict[str, Any] | None:
    """The agent response schema from a stop action's text: a JSON object (bare or in a
    fenced ```json block; the older `performed_operation` key becomes `task_type`), else
    plain text as a retrieved answer {"task_type": "RETRIEVE", "status": "SUCCESS",
    "retrieved_data": [text]}. None for no answer (the response evaluator then fails)."""
    import json
    import re

    if answer is None or not answer.strip():
        return None
    text = answer.strip()
    fenced = re.search(r"```(?:json)?\s*\n?(.*?)\n?```", text, re.DOTALL)
    try:
        value = json.loads(fenced.group(1).strip() if fenced else text)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, dict) and _RESPONSE_KEYS & set(value):
        out = dict(value)
        if "task_type" not in out and "performed_operation" in out:
            out["task_type"] = out.pop("performed_operation")
        return out
    return {"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": [text]}
