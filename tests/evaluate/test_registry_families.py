"""Evaluators are one registry: an evaluator's metric family is part of its registry entry
(no second registry filled by importing modules), a plug-in evaluator brings its own family,
and the modules of `webtraj.evaluate` import each other without a cycle."""

from __future__ import annotations

import subprocess
import sys

import grimp

from webtraj.evaluate import metric_families
from webtraj.evaluate.metric_families import GENERIC, Family, Metric
from webtraj.evaluate.registry import (
    BUILTINS,
    Registry,
    builtin_entries,
    family_of,
    headline_evaluator,
)


def _cycles(package: str) -> list[list[str]]:
    """Strongly connected groups of more than one module among `package`'s modules."""
    graph = grimp.build_graph("webtraj")
    mods = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i in mods)
             for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for m in sorted(mods):
        if m not in index:
            visit(m)
    return out


def test_no_import_cycle_inside_evaluate():
    assert _cycles("webtraj.evaluate") == []


def test_the_family_is_part_of_each_registry_entry():
    families = {name: entry.family.name for name, entry in builtin_entries().items()}
    assert families["constraints"] == "constraints"
    assert families["miniwob"] == "miniwob"
    assert families["mind2web"] == "mind2web"
    assert families["webvoyager"] == families["webjudge"] == "outcome"
    assert families["AgentResponseEvaluator"] == families["NetworkEventEvaluator"] == (
        "webarena-verified")
    # A stored name reads its registered name's entry; an unknown one is generic.
    assert family_of("constraints:oracle") is BUILTINS["constraints"].family
    assert family_of("NetworkEventEvaluator[GET /x]#2").name == "webarena-verified"
    assert family_of("nobody.knows:This") is GENERIC
    assert headline_evaluator(["miniwob", "constraints:rule", "constraints:oracle"]) == (
        "constraints:oracle")
    # No second registry to fill by importing modules.
    assert not hasattr(metric_families, "declare")
    assert not hasattr(metric_families, "family_of")


def test_a_fresh_process_reads_families_from_the_registry_alone():
    """Nothing registers by being imported: family_of answers without any evaluator module
    imported by hand first."""
    code = ("from webtraj.evaluate.registry import family_of; "
            "print(family_of('miniwob').name, family_of('webjudge').name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["miniwob", "outcome"]


class _Steps:
    """A plug-in evaluator that declares its own family."""

    family = Family(name="steps", label="steps", order=60, metrics=(
        Metric(key="mean", label="mean steps", source="mean"),))

    def __init__(self) -> None:
        self.name = "steps"

    async def evaluate(self, trajectory, artifacts):  # pragma: no cover - never run here
        return []


def test_a_plugin_brings_its_family_in_its_entry():
    reg = Registry()
    entry = reg.register_plugin("my_steps", _Steps)
    assert entry.family is _Steps.family
    assert reg.known("my_steps") is entry
    plain = reg.register_plugin("plain", lambda: None)
    assert plain.family is GENERIC


def test_an_episodes_progress_value_is_the_headline_the_tables_show():
    """The suite names its headline evaluators; one function (headline_evaluator) picks
    among them, so the progress line's success is the oracle's when the oracle and the rule
    judge both scored (the stored order used to decide)."""
    from webtraj.execute.suites import get_suite
    from webtraj.model import Score, Task

    scores = [Score(evaluator="constraints:rule", value=0.0),
              Score(evaluator="NetworkEventEvaluator[GET /x]", value=0.0),
              Score(evaluator="constraints:oracle", value=1.0)]
    task = Task(task_id="t", intent="x")
    assert get_suite("booking").headline_value(task, scores) == 1.0
    assert headline_evaluator([s.evaluator for s in scores]) == "constraints:oracle"
