"""Evaluate one WebArena-Verified task: all its evaluators over one shared context.

A task scores 1.0 only if every evaluator does; any evaluator error makes the task an
error (no score). A task whose inputs cannot be read (HAR, response, config) is an error
with a message naming the file, record and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from webtraj.formats.har_reader import load_trace
from webtraj.formats.local_files import LocalFiles
from webtraj.model import InputError
from webtraj.model.errors import from_validation_error
from webtraj.suites.webarena_verified.evaluate.config import AgentResponseConfig, NetworkEventConfig
from webtraj.suites.webarena_verified.evaluate.context import TaskContext
from webtraj.suites.webarena_verified.evaluate.events import scan_events
from webtraj.suites.webarena_verified.evaluate.network import NetworkEventEvaluator
from webtraj.suites.webarena_verified.evaluate.response import AgentResponseEvaluator
from webtraj.suites.webarena_verified.evaluate.result import Status, Verdict
from webtraj.suites.webarena_verified.evaluate.sites import SiteUrls, site_key
from webtraj.suites.webarena_verified.logs import read_log_dir, task_from_obj

CONFIGS: dict[str, type[BaseModel]] = {
    "AgentResponseEvaluator": AgentResponseConfig,
    "NetworkEventEvaluator": NetworkEventConfig,
}
WavEvaluator = AgentResponseEvaluator | NetworkEventEvaluator


def build(config: Any, *, record: str | int | None = None) -> WavEvaluator:
    """One `eval` entry to an evaluator; unknown names and keys raise InputError."""
    if not isinstance(config, dict) or not isinstance(config.get("evaluator"), str):
        raise InputError("evaluator config needs an 'evaluator' name", record=record,
                         field="eval")
    name = config["evaluator"]
    model = CONFIGS.get(name)
    if model is None:
        raise InputError(f"unknown evaluator {name!r}", record=record, field="eval.evaluator")
    try:
        parsed = model.model_validate(config)
    except ValidationError as exc:
        err = from_validation_error(exc, record=record)
        raise InputError(err.message, record=record,
                         field=f"{name}.{err.field}" if err.field else name) from None
    if isinstance(parsed, AgentResponseConfig):
        return AgentResponseEvaluator(parsed)
    assert isinstance(parsed, NetworkEventConfig)
    return NetworkEventEvaluator(parsed)


def task_type_of(configs: list[Any]) -> str:
    """The expected response type (RETRIEVE/MUTATE/NAVIGATE) decides navigation handling."""
    for cfg in configs:
        if isinstance(cfg, dict) and cfg.get("evaluator") == "AgentResponseEvaluator":
            expected = cfg.get("expected") or {}
            value = expected.get("task_type", expected.get("performed_operation"))
            if isinstance(value, str):
                return value.upper()
    raise InputError("the task has no AgentResponseEvaluator with an expected task_type",
                     field="eval")


class TaskVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    status: Status
    score: float | None
    evaluators: tuple[Verdict, ...] = ()
    error: str | None = None

    @classmethod
    def combine(cls, task_id: str, verdicts: list[Verdict]) -> TaskVerdict:
        if any(v.status is Status.ERROR for v in verdicts):
            errors = "; ".join(v.error or "error" for v in verdicts if v.status is Status.ERROR)
            return cls(task_id=task_id, status=Status.ERROR, score=None,
                       evaluators=tuple(verdicts), error=errors)
        ok = all(v.score == 1.0 for v in verdicts)
        return cls(task_id=task_id, status=Status.SUCCESS if ok else Status.FAILURE,
                   score=1.0 if ok else 0.0, evaluators=tuple(verdicts))

    @classmethod
    def failed(cls, task_id: str, error: str) -> TaskVerdict:
        return cls(task_id=task_id, status=Status.ERROR, score=None, error=error)

    def to_line(self) -> dict[str, Any]:
        line: dict[str, Any] = {"task_id": self.task_id, "score": self.score,
                                "status": self.status.value,
                                "evaluators": [v.to_line() for v in self.evaluators]}
        if self.error:
            line["error"] = self.error
        return line


def evaluate_task(task: dict[str, Any], *, site_urls: SiteUrls,
                  entries: list[dict[str, Any]] | None, agent_response: Any) -> TaskVerdict:
    """Score a raw dataset task given its trace entries and raw agent response text."""
    task_id = str(task.get("task_id"))
    try:
        configs = task.get("eval")
        if not isinstance(configs, list) or not configs:
            raise InputError("task has no 'eval' list", record=task_id, field="eval")
        evaluators = [build(c, record=task_id) for c in configs]
        sites = tuple(site_key(s) for s in task.get("sites") or ())
        ctx = TaskContext(task_id=task_id, sites=sites, task_type=task_type_of(configs),
                          site_urls=site_urls, entries=entries, agent_response=agent_response)
    except (InputError, ValueError) as exc:
        return TaskVerdict.failed(task_id, str(exc))
    return TaskVerdict.combine(task_id, [e.evaluate(ctx) for e in evaluators])


def evaluate_log_dir(task: dict[str, Any], log_dir: Path, *, site_urls: SiteUrls,
                     files: LocalFiles | None = None) -> TaskVerdict:
    """Score `<log_dir>/network.har` (or `trace.zip`) and `agent_response.json`.

    The task and the folder are read by the same functions `webtraj import
    webarena-verified` uses, so a folder the importer refuses is an error here too."""
    task_id = str(task.get("task_id"))
    close = None
    try:
        task_from_obj(task, record=task_id)
        log = read_log_dir(log_dir, files=files)
        entries: Any
        if log.trace.suffix == ".har":
            entries, close = scan_events(log.trace)  # lean: entries re-read only when judged
        else:
            entries = load_trace(log.trace)
        return evaluate_task(task, site_urls=site_urls, entries=entries,
                             agent_response=log.response)
    except InputError as exc:
        return TaskVerdict.failed(task_id, str(exc))
    finally:
        if close is not None:
            close()
