"""Evaluator configs are typed per evaluator: one discriminated union keyed by `evaluator`
over the built-ins' config models, listed in a static table; a bad config names the
evaluator and the field (on the command line too, with no traceback); users' evaluators
register into the same registry."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, ValidationError

from webtraj.evaluate.registry import (
    BUILTIN_CONFIG,
    BUILTINS,
    ConfigError,
    builtin_entries,
    check,
    registry,
)

# The least config each built-in accepts.
MINIMAL = {
    "AgentResponseEvaluator": {"results_schema": {"type": "null"},
                               "expected": {"task_type": "navigate", "status": "success"}},
    "NetworkEventEvaluator": {"expected": {"url": "__SHOPPING__/cart"}},
}


def test_every_builtin_config_parses_into_its_own_model():
    for name, entry in builtin_entries().items():
        config = {"evaluator": name, **MINIMAL.get(name, {})}
        parsed = check(config)
        assert type(parsed) is entry.config and parsed.evaluator == name
        if name in BUILTINS:  # the core's union; a suite's evaluator has its own model
            assert type(BUILTIN_CONFIG.validate_python(config)) is entry.config
    # A config model is its evaluator's only: another evaluator's name is refused.
    for entry in {e.config for e in builtin_entries().values()}:
        with pytest.raises(ValidationError):
            entry.model_validate({"evaluator": "constraints-but-not-really"})


@pytest.mark.parametrize(("config", "field"), [
    ({"evaluator": "miniwob", "check_intent": "maybe"}, "miniwob.check_intent"),
    ({"evaluator": "constraints", "steps": "sometimes"}, "constraints.steps"),
    ({"evaluator": "operation_match", "threshold": 1}, "operation_match.threshold"),
    ({"evaluator": "NetworkEventEvaluator", "expected": {"url": "x", "http_method": 5}},
     "NetworkEventEvaluator.expected.http_method"),
    ({"evaluator": "webjudge", "threshold": 9}, "webjudge.threshold"),
])
def test_a_bad_config_names_the_evaluator_and_the_field(config, field):
    with pytest.raises(ConfigError) as err:
        check(config, file="tasks.jsonl", record="t1")
    assert err.value.field == field
    assert "tasks.jsonl" in str(err.value) and "record t1" in str(err.value)


def test_cli_reports_a_bad_config_without_a_traceback(tmp_path):
    from factories import make_trajectory
    from webtraj.store import RunStore

    with RunStore.create(tmp_path / "run") as store:
        store.add_trajectory(make_trajectory())
    proc = subprocess.run(
        [sys.executable, "-m", "webtraj.cli.app", "eval", "--run", str(tmp_path / "run"),
         "--evaluator", "miniwob:check_intent=maybe"], capture_output=True, text=True,
        timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "miniwob.check_intent" in out and "Traceback" not in out


class PlainEvaluator:
    """Scores nothing; registered by hand."""

    name = "plain"

    class Options(BaseModel):
        model_config = {"extra": "forbid"}
        level: int = 1

    def __init__(self, options: Options) -> None:
        self.options = options

    async def evaluate(self, trajectory, artifacts):
        return []


def test_plugins_register_into_the_same_registry():
    name = "test-registry-configs-plain"
    if name not in registry:
        registry.register_plugin(name, PlainEvaluator)
    assert name in registry and name in registry.names()
    assert check({"evaluator": name, "level": 3}).level == 3
    with pytest.raises(ConfigError) as err:
        check({"evaluator": name, "levle": 3})
    assert "levle" in str(err.value)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_plugin("constraints", PlainEvaluator)
