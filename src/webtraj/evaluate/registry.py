"""Evaluator registry: config entries `{"evaluator": NAME, ...options}` to evaluators.

A factory takes the options dict (without `evaluator`) and the run's `EvalEnv`. Giving an
options model (pydantic, `extra="forbid"`) makes unknown keys fail with a clear message;
factories without one must check their options themselves.

NAME is a built-in evaluator, an entry point of the `webtraj.evaluators` group, or a spec
`my_pkg.mod:MyEvaluator` (a class or factory; options model in its `Options` attribute; it
is called with `options=` and, when it has such parameters, `env=`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from webtraj.agents.plugins import (
    entry_point_names,
    is_spec,
    load_entry_point,
    load_spec,
    options_model_of,
    validate_options,
)
from webtraj.evaluate.protocol import EvalEnv, Evaluator
from webtraj.model import InputError
from webtraj.model.errors import from_validation_error

Factory = Callable[[dict[str, Any], EvalEnv], Evaluator]
ENTRY_POINT_GROUP = "webtraj.evaluators"


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Factory
    options: type[BaseModel] | None
    help: str
    # A user's evaluator: its options model does not carry the `evaluator` key.
    plugin: bool = False


def _plugin_entry(name: str, target: Any) -> Entry:
    if not callable(target):
        raise ConfigError(f"evaluator {name!r} is not a class or a factory", field="evaluator")
    model = options_model_of(target)
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        params = {}

    def factory(options: dict[str, Any], env: EvalEnv) -> Evaluator:
        kwargs: dict[str, Any] = {}
        if model is not None:
            kwargs["options"] = model.model_validate(options)
        elif options:
            raise ConfigError(f"evaluator {name!r} takes no options", field="evaluator")
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

    return Entry(name, factory, model, (inspect.getdoc(target) or "").split("\n")[0],
                 plugin=True)


class ConfigError(InputError):
    """An evaluator config that cannot be used (unknown name, unknown or bad option)."""


class Registry:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, factory: Factory, *, options: type[BaseModel] | None = None,
                 help: str = "") -> None:
        if name in self._entries:
            raise ValueError(f"evaluator {name!r} is already registered")
        self._entries[name] = Entry(name, factory, options, help)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def _entry(self, name: str, *, record: str | int | None, file: str | None) -> Entry | None:
        """A registered entry, else a plug-in (spec or entry point) registered on first use."""
        if name in self._entries:
            return self._entries[name]
        try:
            if is_spec(name):
                target = load_spec(name, what="evaluator")
            else:
                target = load_entry_point(ENTRY_POINT_GROUP, name, what="evaluator")
        except InputError as exc:
            raise ConfigError(exc.message, file=file, record=record,
                              field="evaluator") from None
        if target is None:
            return None
        entry = _plugin_entry(name, target)
        self._entries[name] = entry
        return entry

    def check(self, config: Mapping[str, Any], *, record: str | int | None = None,
              file: str | None = None) -> BaseModel | None:
        """Validate a config entry; returns the parsed options model when there is one."""
        name = config.get("evaluator") if isinstance(config, Mapping) else None
        if not isinstance(name, str):
            raise ConfigError("evaluator config needs an 'evaluator' name", file=file,
                              record=record, field="evaluator")
        entry = self._entry(name, record=record, file=file)
        if entry is None:
            known = sorted(set(self.names()) | set(entry_point_names(ENTRY_POINT_GROUP)))
            raise ConfigError(f"unknown evaluator {name!r}; known: {', '.join(known)}, or "
                              "'package.module:ClassOrFactory'",
                              file=file, record=record, field="evaluator")
        if entry.options is None:
            return None
        if entry.plugin:
            try:
                return validate_options(entry.options,
                                        {k: v for k, v in config.items() if k != "evaluator"},
                                        owner=f"evaluator {name!r}", file=file)
            except InputError as exc:
                raise ConfigError(exc.message, file=file, record=record,
                                  field=exc.field) from None
        try:
            return entry.options.model_validate(dict(config))
        except ValidationError as exc:
            err = from_validation_error(exc, file=file, record=record)
            msg = err.message
            if any(e["type"] == "extra_forbidden" for e in exc.errors()):
                msg = f"unknown option for {name}: {msg}"
            raise ConfigError(msg, file=file, record=record,
                              field=f"{name}.{err.field}" if err.field else name) from None

    def create(self, config: Mapping[str, Any], env: EvalEnv | None = None, *,
               record: str | int | None = None, file: str | None = None) -> Evaluator:
        self.check(config, record=record, file=file)
        entry = self._entries[config["evaluator"]]
        options = {k: v for k, v in config.items() if k != "evaluator"}
        return entry.factory(options, env or EvalEnv())


registry = Registry()
"""The process-wide registry; evaluator packages register themselves on import."""


def create(config: Mapping[str, Any], env: EvalEnv | None = None, **kw: Any) -> Evaluator:
    load_builtins()
    return registry.create(config, env, **kw)


def check(config: Mapping[str, Any], **kw: Any) -> BaseModel | None:
    """Validate one evaluator config (name, plug-in, options) without building it."""
    load_builtins()
    return registry.check(config, **kw)


def load_builtins() -> None:
    """Import the built-in evaluator packages: each registers its evaluators (and declares
    its metric family) on import."""
    import webtraj.evaluate.case_scorers  # noqa: F401
    import webtraj.evaluate.constraints.plugin  # noqa: F401
    import webtraj.evaluate.mind2web.evaluator  # noqa: F401
    import webtraj.evaluate.miniwob  # noqa: F401
    import webtraj.evaluate.outcome.plugin  # noqa: F401
    import webtraj.evaluate.webarena_verified.plugin  # noqa: F401
