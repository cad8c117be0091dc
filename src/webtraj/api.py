"""The Python API: run an agent on tasks and get the scored run back, or score a run again,
from a notebook or a script, with everything `webtraj run` / `webtraj eval --run` do
(workers or Ray, the sandbox or MiniWoB++ servers, per-episode timeouts, resume, scoring,
usage accounting, the HTML report).

    import webtraj.api as wt

    result = wt.run(suite="miniwob", task_ids=["click-button"], seeds=range(5),
                    agent="my_pkg.agents:MyAgent", agent_options={"role": "button"},
                    out="runs/mine", workers=2)
    print(result.success_rate("miniwob"), result.report)
    again = wt.rescore(result, evaluators=["constraints:judge=rule,steps=all"])

`agent` is a spec (a built-in name, an entry point, `pkg.module:Class`) or an agent object.
An object whose class can be imported by worker processes is rebuilt there from its class
and its `options`; any other object (say, defined in a notebook) runs in this process, one
episode after another."""

from __future__ import annotations

import importlib
import inspect
import os
import textwrap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from rich.console import Group
from rich.text import Text

from webtraj.agents.protocol import Agent, AgentError
from webtraj.agents.registry import check_agent_options
from webtraj.model import InputError, Score, Task, Trajectory
from webtraj.model.errors import from_validation_error
from webtraj.model.plugins import options_model_of
from webtraj.model.run_settings import RunConfig, SuiteOptions
from webtraj.model.suite_registry import option_names, options_declaring
from webtraj.report.run_summary import RunSummary, summarize
from webtraj.store import RunStore

__all__ = ["Run", "agent_spec", "rescore", "run", "run_config"]


@dataclass(frozen=True, repr=False)
class Run:
    """A stored run: where it is, its summary (per-evaluator mean, SR, CSR and per-trajectory
    scores), and its HTML report. The files stay the source of truth: `open()` reads them.
    `print(run)` (and Rich, and a notebook) shows the tables `webtraj run` prints at its end
    (`report.tables.run_tables`), then where the run and its report are."""

    path: Path
    summary: RunSummary
    report: Path | None = None

    def tables(self) -> Group:
        """The run's tables as `webtraj run` prints them, and the line naming its files."""
        from webtraj.report.tables import run_tables

        with self.open() as store:
            tables = run_tables(store)
        where = f"run: {self.path}" + (f"   report: {self.report}" if self.report else "")
        return Group(tables, Text(where))

    def __rich__(self) -> Group:
        return self.tables()

    def __str__(self) -> str:
        from webtraj.report.tables import as_text

        return as_text(self.tables()).rstrip("\n")

    def __repr__(self) -> str:
        n = len(self.summary.trajectories)
        return f"Run(path={str(self.path)!r}, trajectories={n}, report={self.report is not None})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython shows the tables
        printer.text(str(self))

    @classmethod
    def load(cls, path: str | Path) -> Run:
        with RunStore.open(path) as store:
            summary = summarize(store)
        report = Path(path) / "report.html"
        return cls(Path(path), summary, report if report.is_file() else None)

    def open(self) -> RunStore:
        return RunStore.open(self.path)

    def trajectories(self) -> Iterator[Trajectory]:
        with self.open() as store:
            yield from store.iter_trajectories()

    def scores(self, trajectory_id: str, evaluator: str | None = None) -> list[Score]:
        with self.open() as store:
            return store.scores(trajectory_id, evaluator=evaluator)

    def success_rate(self, evaluator: str) -> float | None:
        """SR of one evaluator over the scored trajectories (None if none was scored)."""
        agg = self.summary.evaluators.get(evaluator)
        return agg.sr if agg else None


def agent_spec(agent: Agent | str) -> tuple[str, dict[str, Any]] | None:
    """(spec, options) a worker process can rebuild `agent` from, or None if it cannot."""
    if isinstance(agent, str):
        return agent, {}
    cls = type(agent)
    module, qualname = cls.__module__, cls.__qualname__
    if module in ("__main__", "builtins") or "<locals>" in qualname:
        return None
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None
    if target is not cls:
        return None
    model = options_model_of(cls)
    options = getattr(agent, "options", None)
    if model is not None:
        return (f"{module}:{qualname}", options.model_dump(mode="json")) \
            if isinstance(options, model) else None
    params = [p for p in inspect.signature(cls).parameters.values()
              if p.default is inspect.Parameter.empty
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return (f"{module}:{qualname}", {}) if not params else None


def _write_tasks(tasks: Iterable[Task | Mapping[str, Any]], out: Path) -> Path:
    items = [t if isinstance(t, Task) else Task.model_validate(dict(t)) for t in tasks]
    if not items:
        raise InputError("no tasks given", field="tasks")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "tasks.jsonl"
    path.write_bytes(b"".join(t.to_json_bytes(indent=False) + b"\n" for t in items))
    return path


def run(tasks: Iterable[Task | Mapping[str, Any]] | str | Path | None = None, *,
        agent: Agent | str, out: str | Path, report: bool = True, **settings: Any) -> Run:
    """Run `agent` on `tasks` (Task objects or dicts, or a JSONL/JSON task file) or on a
    built-in `suite` ("booking", "miniwob", ...); store, score and report into `out` (run
    again with the same `out` to resume). `settings` are the run's settings by the names
    run.json records them (`RunConfig`, listed below; `webtraj run` has an option for
    each), e.g. `workers=2`, `seeds=range(5)`, `evaluators=["constraints:steps=all"]`.
    Unknown settings, bad values, agents, options or evaluators raise `InputError` before
    any browser starts."""
    from webtraj.execute.run import execute_run

    out = Path(out)
    rebuilt = agent_spec(agent)
    spec = rebuilt[0] if rebuilt else getattr(agent, "name", None) or type(agent).__name__
    config = run_config(settings, agent=spec)
    if (tasks is None) == (config.suite is None):
        raise InputError("give either tasks or a suite", field="tasks")
    options = dict(config.agent_options)
    local_agent: Agent | None = None
    if rebuilt is None:
        if config.executor == "ray" or config.workers > 1 or config.episodes_per_worker > 1:
            raise InputError(f"agent {type(agent).__qualname__} cannot be rebuilt in worker "
                             "processes (define its class in an importable module, with its "
                             "options in an `options` attribute), so it runs in this process: "
                             "use workers=1, episodes_per_worker=1 and the local executor",
                             field="agent")
        if options:
            raise InputError("agent_options apply to an agent given by spec; an agent object "
                             "carries its own options", field="agent_options")
        local_agent = agent  # type: ignore[assignment]
    else:
        options = {**rebuilt[1], **options}
        check_agent_options(spec, options)
    tasks_file = None
    if tasks is not None:
        tasks_file = str(tasks) if isinstance(tasks, str | Path) else str(
            _write_tasks(tasks, out))
    config = config.model_copy(update={"agent_options": options, "tasks_file": tasks_file})
    try:
        store = execute_run(config, out, command="webtraj.api.run", agent=local_agent)
    except AgentError as exc:
        raise InputError(str(exc), field="agent") from None
    return _finish(store, report)


def run_config(settings: Mapping[str, Any], *, agent: str) -> RunConfig:
    """`settings` as the run's `RunConfig`: the Python spellings the model does not hold
    (an options model, evaluator spec strings, any iterable for a tuple) are converted;
    an unknown name or a bad value is an `InputError` naming the setting."""
    from webtraj.evaluate.spec import parse_evaluator_spec

    fields = RunConfig.model_fields
    offered = option_names()
    for name in settings:
        if (name not in fields and name not in offered) or name in ("agent", "tasks_file"):
            known = ", ".join(n for n in (*fields, *offered)
                              if n not in ("agent", "tasks_file"))
            raise InputError(f"unknown setting {name!r} (the settings are: {known}; give "
                             "a task file as `tasks`)", field=name)
    values = dict(settings)
    options = values.get("agent_options")
    if isinstance(options, BaseModel):
        values["agent_options"] = options.model_dump(mode="json")
    if "evaluators" in values:
        values["evaluators"] = tuple(parse_evaluator_spec(e) if isinstance(e, str) else dict(e)
                                     for e in values["evaluators"])
    for name, value in values.items():
        if isinstance(value, os.PathLike):
            values[name] = os.fspath(value)
        elif isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping
                                                             | BaseModel):
            values[name] = tuple(value)
    # A suite's own options by their names, carried for the suite to read (`Suite.options`).
    given = {n: values.pop(n) for n in offered if n in values and n not in fields}
    if given:
        carried = values.get("suite_options") or {}
        if isinstance(carried, SuiteOptions):
            carried = carried.model_extra or {}
        values["suite_options"] = {**carried, **given}
    try:
        return RunConfig.model_validate({**values, "agent": agent})
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def _settings_doc() -> str:
    """The settings `run` takes, with their defaults, from the one declaration."""
    lines = ["", "", "Settings (default):", ""]
    suites = {n: options_declaring(n).model_fields[n] for n in option_names()}
    for name, field in {**RunConfig.model_fields, **suites}.items():
        if name in ("agent", "tasks_file"):
            continue
        default = field.get_default(call_default_factory=True)
        lines.append(textwrap.fill(f"{name} ({default!r}): {field.description}", 88,
                                   initial_indent="    ", subsequent_indent="        "))
    return "\n".join(lines)


run.__doc__ = (run.__doc__ or "") + _settings_doc()


def rescore(run: Run | str | Path, evaluators: Sequence[str | Mapping[str, Any]] | None = None,
            *, llm: str | None = None, no_cache: bool = False, report: bool = True,
            **filters: Any) -> Run:
    """Score a stored run again (with `evaluators`, or each task's own); new scores are kept
    beside the old ones and the summary uses the newest. Cached model calls make a repeated
    re-score free."""
    from webtraj.evaluate.registry import check as check_evaluator
    from webtraj.evaluate.run_scoring import RunEnvironments, score_run
    from webtraj.evaluate.spec import parse_evaluator_spec

    path = run.path if isinstance(run, Run) else Path(run)
    configs = None
    if evaluators is not None:
        configs = [parse_evaluator_spec(e) if isinstance(e, str) else dict(e)
                   for e in evaluators]
        for i, config in enumerate(configs):
            check_evaluator(config, record=f"evaluator {i + 1}")
    store = RunStore.open(path, write=True, command="webtraj.api.evaluate")
    with store:
        envs = RunEnvironments(store.info, llm=llm, no_cache=no_cache)
        score_run(store, configs, envs, **filters)
    return _finish(RunStore.open(path), report)


def _finish(store: RunStore, report: bool) -> Run:
    with store:
        summary = summarize(store)
        page = None
        if report:
            from webtraj.report.html import write_report

            page = write_report(store)
    return Run(store.root, summary, page)
