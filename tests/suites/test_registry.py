"""A suite is a type, not a name (issue 28, point 1): every suite with tasks lists them with
`webtraj sites tasks`, a file of a suite's tasks is served by that suite, curation's judge
comes from the run's suite, and no code outside the registry tests a suite's name. A
benchmark is one package (issue 40, point 1): outside the suites' packages and the registry,
no code names a suite at all, not even as a default (`suite: str = "booking"`)."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import webtraj
from webtraj.store import RunStore

SRC = Path(webtraj.__file__).parent
# The registry, and the suites' own packages (the sandbox sites the booking suite serves).
OWNERS = ("model/suite_registry.py", "sites/", "suites/")
SUITE_NAMES = {"booking", "miniwob", "webarena-verified"}


def _literals(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return {v for e in node.elts for v in _literals(e)}
    return set()


def test_no_code_outside_the_registry_branches_on_a_suite_name():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(OWNERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                names = set().union(*map(_literals, [node.left, *node.comparators]))
            elif isinstance(node, ast.match_case):
                names = _literals(node.pattern.value) if isinstance(
                    node.pattern, ast.MatchValue) else set()
            else:
                continue
            if names & SUITE_NAMES:
                found.append(f"{rel}:{node.lineno}")
    assert not found, f"suite names tested outside the registry: {found}"


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                          | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def test_the_core_names_no_suite_not_even_as_a_default():
    """Any string that is a suite's name, outside a docstring: a default (`suite: str =
    "booking"`, `Option("booking")`), a fallback (`.get("suite") or "booking"`), a value
    (`RunConfig(suite="booking")`), a command's name (`"webarena-verified"`). The default
    suite is the registry's first entry (`model.suite_registry.default_suite`)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(OWNERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        found += [f"{rel}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in SUITE_NAMES
                  and id(node) not in docs]
    assert not found, f"suites named outside their packages and the registry: {found}"


def test_the_checks_see_a_default():
    """The check above catches the forms the core used to write."""
    for code in ('class S:\n    suite: str = "booking"\n',
                 'x = config.get("suite") or "booking"\n',
                 'def f(suite="miniwob"): pass\n'):
        tree = ast.parse(code)
        assert any(isinstance(n, ast.Constant) and n.value in SUITE_NAMES
                   and id(n) not in _docstrings(tree) for n in ast.walk(tree)), code


def test_unknown_suite_is_a_clear_error(tmp_path):
    from webtraj.cli.app import app

    result = CliRunner().invoke(app, ["sites", "tasks", "--suite", "nope", "--out",
                                      str(tmp_path / "t.jsonl")])
    assert result.exit_code == 2
    assert "unknown suite 'nope'; available: booking, miniwob" in result.output
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Chromium")
def test_miniwob_tasks_listed_then_run_from_the_file(tmp_path):
    pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")
    from webtraj.cli.app import app
    from webtraj.execute.curation import default_judge

    listed = tmp_path / "mw.jsonl"
    result = CliRunner().invoke(app, ["sites", "tasks", "--suite", "miniwob", "--task-ids",
                                      "click-button", "--out", str(listed)])
    assert result.exit_code == 0, result.output
    [task] = [json.loads(x) for x in listed.read_text().splitlines()]
    assert task["task_id"] == "miniwob/click-button/0"
    assert task["intent"].startswith("Click on the") and task["metadata"]["seed"] == 0

    # The file's start URL points at the listing's server, long gone: the run serves
    # MiniWoB++ itself and moves the task there.
    out = tmp_path / "run"
    # A task name selects its instances in a file too.
    result = CliRunner().invoke(app, ["run", "--tasks", str(listed), "--task-ids",
                                      "click-button", "--agent", "heuristic", "--max-steps",
                                      "1", "--timeout", "60", "--out", str(out)],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "unknown" not in result.output and "warning" not in result.output
    with RunStore.open(out) as store:
        [traj] = list(store.iter_trajectories())
        [score] = store.scores(traj.trajectory_id, evaluator="miniwob")
        info = store.info
    assert traj.error is None, traj.error
    assert traj.task.start_url.startswith(info.site_urls["miniwob"] + "/miniwob/")
    assert score.value is not None and not score.error, score  # the page's reward was read
    assert default_judge(info) == "miniwob"


def test_curation_judge_comes_from_the_runs_suite():
    import datetime as dt

    from webtraj.execute.curation import default_judge
    from webtraj.execute.suites import suite_of_run
    from webtraj.model import RunInfo
    from webtraj.model.run import RunConfig, SandboxInfo

    sandbox = SandboxInfo(today=dt.date(2026, 1, 15))
    urls = {"hotels": "http://127.0.0.1:8760"}
    cases = [
        (RunInfo(settings=RunConfig(suite="booking", agent="replay"), sandbox=sandbox,
                 site_urls=urls), "booking", "oracle"),
        (RunInfo(settings=RunConfig(suite="miniwob", agent="replay")), "miniwob", "miniwob"),
        # A file of MiniWoB++ tasks is curated on the page's reward, like --suite miniwob.
        (RunInfo(settings=RunConfig(tasks_file="mw.jsonl", agent="replay"),
                 site_urls={"miniwob": "http://127.0.0.1:9"}), "tasks-file", "miniwob"),
        (RunInfo(settings=RunConfig(tasks_file="t.jsonl", agent="replay"), sandbox=sandbox,
                 site_urls=urls), "tasks-file", "oracle"),
        (RunInfo(settings=RunConfig(tasks_file="own.jsonl", agent="replay"),
                 site_urls={"shop": "http://127.0.0.1:9"}), "tasks-file", "rule"),
        (RunInfo(source="browser-use"), "imported", "rule"),
    ]
    for info, suite, judge in cases:
        assert (suite_of_run(info).name, default_judge(info)) == (suite, judge), info


def test_the_default_suite_and_a_suites_syntax_come_from_the_registry():
    import datetime as dt

    from webtraj.execute.suites import named_suites, parse_setting
    from webtraj.model import InputError
    from webtraj.model.run import SandboxInfo
    from webtraj.model.suite_registry import default_suite

    assert default_suite() == named_suites()[0].name == "booking"
    assert SandboxInfo(today=dt.date(2026, 1, 15)).suite == default_suite()
    # MiniWoB++'s seed syntax, which the CLI asks the registry for (`--seeds 0-2,5`).
    assert parse_setting("seeds", "0-2,5") == (0, 1, 2, 5)
    with pytest.raises(InputError, match="bad seed range"):
        parse_setting("seeds", "2-1")
    assert parse_setting("no-suite-reads-this", "as is") == "as is"
