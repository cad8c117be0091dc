"""A run as a WebArena-Verified leaderboard submission: one folder per task with
`agent_response.json` and `network.har`, the HAR trimmed as the reference's
`trim_network_logs` trims it (entries of static assets dropped: the evaluators never read
them; header values whose names say auth/token/key/secret replaced by "[REDACTED]").

The response written is the trajectory's answer as stored: a run of the webarena-verified
suite stores the agent response JSON, an imported run the response file's text, so
`webtraj eval webarena-verified --logs DIR` on the folder gives the run's own verdicts."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from webtraj.model import InputError, Trajectory
from webtraj.store.atomic import write_bytes_atomic
from webtraj.store.files import read_artifact
from webtraj.suites.webarena_verified.evaluate.events import is_static_url

SITE_URLS_FILE = "site_urls.json"
_SENSITIVE = re.compile(r"^authorization$|^x-api-key$|^x-auth-token$|^x-api-secret$|auth|"
                        r"token|key|secret")


def trim_har(har: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The HAR without static-asset entries, sensitive header values redacted (as the
    reference trims a submission's HAR); the number of entries dropped."""
    log = har.get("log")
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise ValueError("not a HAR file: no log.entries")
    kept = []
    for entry in entries:
        url = ((entry.get("request") or {}).get("url") or "") if isinstance(entry, dict) else ""
        if isinstance(entry, dict) and not is_static_url(str(url)):
            kept.append(_sanitized(entry))
    return {**har, "log": {**log, "entries": kept}}, len(entries) - len(kept)


def _sanitized(entry: dict[str, Any]) -> dict[str, Any]:
    out = dict(entry)
    for part in ("request", "response"):
        section = entry.get(part)
        if isinstance(section, dict) and isinstance(section.get("headers"), list):
            out[part] = {**section, "headers": [
                {**h, "value": "[REDACTED]"} if isinstance(h, dict) and
                _SENSITIVE.search(str(h.get("name", "")).lower()) else h
                for h in section["headers"]]}
    return out


@dataclass
class SubmissionResult:
    written: list[str] = field(default_factory=list)
    # (task id, why it was left out)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    dropped_entries: int = 0


def write_submission(items: Iterable[tuple[Trajectory, Path]], out: Path,
                     site_urls: dict[str, str]) -> SubmissionResult:
    """Write each (trajectory, its folder) as `<out>/<task_id>/`; a task given twice keeps
    its first trajectory (one per task on the leaderboard). `site_urls.json` beside them
    names the deployment the HARs were recorded on (what `eval --logs` maps them with)."""
    out.mkdir(parents=True, exist_ok=True)
    result = SubmissionResult()
    seen: set[str] = set()
    for traj, folder in items:
        tid = traj.task.task_id
        if not tid.isdigit():
            result.skipped.append((tid, "not a WebArena-Verified task id (a number)"))
            continue
        if tid in seen:
            result.skipped.append((tid, f"another trajectory of the task was exported "
                                        f"({traj.trajectory_id} left out)"))
            continue
        if not traj.network_trace or not traj.network_trace.endswith(".har"):
            result.skipped.append((tid, "no HAR recorded (a trace.zip or nothing)"))
            continue
        try:
            # Through the one reader of run artifacts: a linked network.har, or a
            # network_trace naming a file outside the trajectory's folder, is refused (the
            # leaderboard upload never carries a local file).
            har = orjson.loads(read_artifact(folder, traj.network_trace))
            trimmed, dropped = trim_har(har)
        except InputError as exc:
            result.skipped.append((tid, f"network trace left out: {exc}"))
            continue
        except (orjson.JSONDecodeError, ValueError) as exc:
            result.skipped.append((tid, f"{folder}/{traj.network_trace}: {exc}"))
            continue
        seen.add(tid)
        task_dir = out / tid
        task_dir.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(task_dir / "network.har", orjson.dumps(trimmed))
        response = traj.answer if traj.answer is not None else "null"
        write_bytes_atomic(task_dir / "agent_response.json", response.encode("utf-8"))
        result.written.append(tid)
        result.dropped_entries += dropped
    write_bytes_atomic(out / SITE_URLS_FILE, orjson.dumps(site_urls, option=orjson.OPT_INDENT_2))
    return result
