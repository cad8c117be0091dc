"""Evaluator registry: config entries `{"evaluator": NAME, ...options}` to evaluators.

The built-in evaluators are one static table (`BUILTINS`): each name with its typed config
model and what builds it from that config and the run's `EvalEnv`. Their configs together
are one discriminated union keyed by `evaluator` (`BuiltinConfig`, as webarena-verified's
evaluator configs are), so a bad config is an error naming the evaluator and the field
before anything runs. The evaluators a suite's package contributes (MiniWoB++'s reward,
WebArena-Verified's checks) are built-ins too: the suite registry
(`webtraj.model.suite_registry`) names their entries by module path, loaded when first asked
for (`suite_entry`), so this layer imports no suite's package.

Each entry carries the evaluator's metric family (`evaluate.metric_families.Family`: the headline
metrics summaries show for its scores); `family_of(stored name)` reads it, and
`headline_evaluator(names)` picks a run's headline evaluator by it. Nothing registers by
being imported: this table is the registry.

A user's evaluator is a spec `my_pkg.mod:MyEvaluator` or an entry point of the
`webtraj.evaluators` group (a class or factory; options model in its `Options` attribute,
metric family in its `family` attribute, generic without one; it is called with `options=`
and, when it has such a parameter, `env=`). The first config that
names one registers it explicitly into the same registry (`Registry.register_plugin`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from webtraj.evaluate import case_scorers
from webtraj.evaluate.case_scorers import CaseScorerConfig
from webtraj.evaluate.constraints import plugin as constraints
from webtraj.evaluate.constraints.evaluator import ConstraintsOptions
from webtraj.evaluate.errors import ConfigError
from webtraj.evaluate.metric_families import GENERIC, Family, base_name
from webtraj.evaluate.mind2web import evaluator as mind2web
from webtraj.evaluate.mind2web.evaluator import Mind2WebOptions
from webtraj.evaluate.outcome import plugin as outcome
from webtraj.evaluate.outcome import webjudge, webvoyager
from webtraj.evaluate.outcome.webjudge import WebJudgeOptions
from webtraj.evaluate.outcome.webvoyager import WebVoyagerOptions
from webtraj.evaluate.protocol import EvalEnv, Evaluator
from webtraj.model import Task
from webtraj.model.errors import InputError, from_validation_error
from webtraj.model.plugins import (
    entry_point_names,
    is_spec,
    load_entry_point,
    load_spec,
    options_model_of,
    validate_options,
)
from webtraj.model.suite_registry import suite_evaluators

__all__ = ["BUILTINS", "BuiltinConfig", "ConfigError", "Entry", "Registry", "check",
           "builtin_entries", "check_task", "create", "family_of", "headline_evaluator",
           "registry", "suite_entry"]

ENTRY_POINT_GROUP = "webtraj.evaluators"


@dataclass(frozen=True)
class Entry:
    name: str
    # Builds the evaluator from its validated config (a built-in's config model, a plug-in's
    # `Options` or None) and the run's environment.
    build: Callable[[Any, EvalEnv], Evaluator]
    config: type[BaseModel] | None
    help: str
    # What its scores mean in a summary (headline metrics, rank among families).
    family: Family = GENERIC
    # A user's evaluator: its options model does not carry the `evaluator` key.
    plugin: bool = False


def _builtin(config: type[BaseModel], build: Callable[[Any, EvalEnv], Evaluator],
             help: str, family: Family, *names: str) -> dict[str, Entry]:
    return {name: Entry(name, build, config, help, family) for name in names}


BUILTINS: dict[str, Entry] = {
    **_builtin(ConstraintsOptions, constraints.factory,
               "CSR/SR with a rule, llm, vlm or oracle judge (the constraint-based evaluation "
               "paper)", constraints.FAMILY, "constraints"),
    **_builtin(Mind2WebOptions, mind2web.factory,
               "Mind2Web: element accuracy, operation F1, step and task success against the "
               "task's annotated steps", mind2web.FAMILY, mind2web.NAME),
    **_builtin(WebVoyagerOptions, webvoyager.factory,
               "last k screenshots + answer -> SUCCESS/NOT SUCCESS, n runs", outcome.FAMILY,
               "webvoyager"),
    **_builtin(WebJudgeOptions, webjudge.factory,
               "key points, screenshot relevance, verdict (Online-Mind2Web)", outcome.FAMILY,
               "webjudge"),
    **{fn.__name__: Entry(fn.__name__, case_scorers.builtin_scorer, CaseScorerConfig,
                          (fn.__doc__ or "").split("\n")[0] + " (Eval cases)")
       for fn in case_scorers.BUILTINS},
}

# Every built-in's config, told apart by its `evaluator` name.
BuiltinConfig = Annotated[
    ConstraintsOptions | Mind2WebOptions | WebVoyagerOptions | WebJudgeOptions
    | CaseScorerConfig,
    Field(discriminator="evaluator")]
BUILTIN_CONFIG: TypeAdapter[BuiltinConfig] = TypeAdapter(BuiltinConfig)


_SUITE_EVALUATORS: dict[str, str] = suite_evaluators()
_suite_entries: dict[str, Entry] = {}


def suite_entry(name: str) -> Entry | None:
    """The entry a suite's package contributes under `name`, loaded on first use."""
    spec = _SUITE_EVALUATORS.get(name)
    if spec is None:
        return None
    entry = _suite_entries.get(name)
    if entry is None:
        entry = _suite_entries[name] = load_spec(spec, what="evaluator")
    return entry


def builtin_entries() -> dict[str, Entry]:
    """Every built-in entry: the core table's and those the suites contribute (loaded)."""
    suites = {name: suite_entry(name) for name in _SUITE_EVALUATORS}
    return {**BUILTINS, **{k: v for k, v in suites.items() if v is not None}}


def _plugin_entry(name: str, target: Any) -> Entry:
    if not callable(target):
        raise ConfigError(f"evaluator {name!r} is not a class or a factory", field="evaluator")
    model = options_model_of(target)
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        params = {}

    def build(options: BaseModel | None, env: EvalEnv) -> Evaluator:
        kwargs: dict[str, Any] = {}
        if options is not None:
            kwargs["options"] = options
        if "env" in params:
            kwargs["env"] = env
        evaluator = target(**kwargs)
        if not inspect.iscoroutinefunction(getattr(evaluator, "evaluate", None)):
            raise ConfigError(f"evaluator {name!r} does not implement "
                              "webtraj.evaluate.Evaluator: it needs `async def evaluate("
                              "trajectory, artifacts)`", field="evaluator")
        if not isinstance(getattr(evaluator, "name", None), str):
            raise ConfigError(f"evaluator {name!r} needs a `name` string", field="evaluator")
        return evaluator

    family = getattr(target, "family", None)
    return Entry(name, build, model, (inspect.getdoc(target) or "").split("\n")[0],
                 family if isinstance(family, Family) else GENERIC, plugin=True)


class Registry:
    """The built-ins, and the users' evaluators registered into it."""

    def __init__(self) -> None:
        self._plugins: dict[str, Entry] = {}

    def register_plugin(self, name: str, target: Any) -> Entry:
        """Register a user's evaluator (class or factory) under `name`."""
        if name in BUILTINS or name in _SUITE_EVALUATORS or name in self._plugins:
            raise ValueError(f"evaluator {name!r} is already registered")
        entry = self._plugins[name] = _plugin_entry(name, target)
        return entry

    def names(self) -> list[str]:
        return sorted({*BUILTINS, *_SUITE_EVALUATORS, *self._plugins})

    def known(self, name: str) -> Entry | None:
        """The built-in (a suite's loaded now) or registered entry of `name`; no user's
        plug-in is loaded."""
        return BUILTINS.get(name) or suite_entry(name) or self._plugins.get(name)

    def __contains__(self, name: str) -> bool:
        return name in BUILTINS or name in _SUITE_EVALUATORS or name in self._plugins

    def entry(self, name: str, *, record: str | int | None = None,
              file: str | None = None) -> Entry | None:
        """A built-in or registered entry; else the user's evaluator the name points to
        (spec or entry point), registered now; None when it points to nothing."""
        known = self.known(name)
        if known is not None:
            return known
        try:
            target = (load_spec(name, what="evaluator") if is_spec(name)
                      else load_entry_point(ENTRY_POINT_GROUP, name, what="evaluator"))
        except InputError as exc:  # the module or entry point cannot be loaded
            raise ConfigError(exc.message, file=file, record=record, field="evaluator") from None
        return None if target is None else self.register_plugin(name, target)

    def check(self, config: Mapping[str, Any], *, record: str | int | None = None,
              file: str | None = None) -> BaseModel | None:
        """The config's typed options: a built-in's config model (the evaluator's own
        union member), a plug-in's `Options`, or None for a plug-in without options."""
        name = config.get("evaluator") if isinstance(config, Mapping) else None
        if not isinstance(name, str):
            raise ConfigError("evaluator config needs an 'evaluator' name", file=file,
                              record=record, field="evaluator")
        entry = self.entry(name, record=record, file=file)
        if entry is None:
            known = sorted(set(self.names()) | set(entry_point_names(ENTRY_POINT_GROUP)))
            raise ConfigError(f"unknown evaluator {name!r}; known: {', '.join(known)}, or "
                              "'package.module:ClassOrFactory'",
                              file=file, record=record, field="evaluator")
        options = {k: v for k, v in config.items() if k != "evaluator"}
        if entry.plugin:
            if entry.config is None:
                if options:
                    raise ConfigError(f"evaluator {name!r} takes no options", file=file,
                                      record=record, field=name)
                return None
            try:
                return validate_options(entry.config, options, owner=f"evaluator {name!r}",
                                        file=file)
            except InputError as exc:  # naming the option
                raise ConfigError(exc.message, file=file, record=record,
                                  field=exc.field) from None
        try:
            if name not in BUILTINS:  # a suite's evaluator: its own config model
                assert entry.config is not None
                return entry.config.model_validate(dict(config))
            return BUILTIN_CONFIG.validate_python(dict(config))
        except ValidationError as exc:
            raise _config_error(name, exc, file=file, record=record) from None

    def create(self, config: Mapping[str, Any], env: EvalEnv | None = None, *,
               record: str | int | None = None, file: str | None = None) -> Evaluator:
        options = self.check(config, record=record, file=file)
        entry = self.entry(config["evaluator"])
        assert entry is not None  # check() found it
        return entry.build(options, env or EvalEnv())


def _config_error(name: str, exc: ValidationError, *, file: str | None,
                  record: str | int | None) -> ConfigError:
    """The first problem of a built-in's config, its field named under the evaluator
    (`miniwob.check_intent`)."""
    err = from_validation_error(exc, file=file, record=record)
    # The union puts the evaluator's name first in each location (`miniwob.check_intent`).
    field = err.field if err.field and err.field.split(".")[0].split("[")[0] == name else (
        f"{name}.{err.field}" if err.field else name)
    msg = err.message
    if any(e["type"] == "extra_forbidden" for e in exc.errors()):
        msg = f"unknown option for {name}: {msg}"
    return ConfigError(msg, file=file, record=record, field=field)


registry = Registry()
"""The process-wide registry: the built-ins and the users' evaluators named so far."""


def family_of(evaluator: str) -> Family:
    """The metric family of a stored evaluator name (its registered name's entry; generic
    for a name no entry of this process knows)."""
    entry = registry.known(base_name(evaluator))
    return entry.family if entry is not None else GENERIC


def headline_evaluator(names: list[str]) -> str | None:
    """A run's headline evaluator among the stored evaluator names: of the family ranked
    first (constraints, the oracle first; then MiniWoB++, WebArena-Verified, Mind2Web,
    outcome judges, any other), the preferred instance. The one place this is decided: the
    trajectory list, the site table, the step curves and the progress line show it."""
    if not names:
        return None

    def rank(name: str) -> tuple:
        family = family_of(name)
        return family.order, name != family.preferred, name

    return min(names, key=rank)


def create(config: Mapping[str, Any], env: EvalEnv | None = None, **kw: Any) -> Evaluator:
    return registry.create(config, env, **kw)


def check(config: Mapping[str, Any], **kw: Any) -> BaseModel | None:
    """Validate one evaluator config (name, plug-in, options) without building it."""
    return registry.check(config, **kw)


def check_task(task: Task) -> None:
    """Each evaluator config of a task validated as scoring will build it, so a bad one is
    refused where the task is read (its field named `evaluators[i].option`), not turned into
    an error score for every trajectory of the task."""
    for i, config in enumerate(task.evaluators):
        try:
            check(config)
        except InputError as exc:
            name = config.get("evaluator")
            # The option's own name after the config's place (`evaluators[0].expected`).
            option = (exc.field or "").removeprefix(f"{name}.").removeprefix(str(name))
            field = f"evaluators[{i}]" + (f".{option}" if option and option != "evaluator"
                                          else "")
            message = exc.message if repr(name) in exc.message else (
                f"evaluator {name!r}: {exc.message}")
            raise ConfigError(message, field=field) from None
