"""Names say what things are: a public class name has one home in webtraj, and no module only
re-exports another's names (readers find each thing in its layer)."""

from __future__ import annotations

import ast
import importlib.util
from collections import defaultdict
from pathlib import Path

import webtraj

SRC = Path(webtraj.__file__).parent
# Known duplicates still to be renamed (issue 32 point 9's follow-ups); the list only shrinks.
KNOWN = {"ExtractionError", "Cell", "Rental"}


def test_public_class_names_have_one_home():
    homes: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes[node.name].append(str(path.relative_to(SRC)))
    twice = {name: where for name, where in homes.items() if len(where) > 1}
    assert set(twice) <= KNOWN, {n: w for n, w in twice.items() if n not in KNOWN}
    assert homes["StepOutcome"] == ["browser/env_results.py"]
    assert homes["Mind2WebStepScore"] == ["evaluate/mind2web/step_metrics.py"]


def test_no_re_export_module_for_the_tree_text_parser():
    assert importlib.util.find_spec("webtraj.agents.page") is None
    from webtraj.agents.heuristic import parse_tree as used_by_the_agent
    from webtraj.dom.tree_text import parse_tree

    assert used_by_the_agent is parse_tree


ROOT = SRC.parents[1]
# Modules renamed so that their names say what they hold (issue 40 point 5): old -> new.
RENAMED: dict[str, str] = {
    "webtraj.agents.mindact_live": "webtraj.agents.mindact.live_agent",
    "webtraj.formats.har": "webtraj.formats.har_reader",
    "webtraj.browser.har": "webtraj.browser.har_recorder",
    "webtraj.browser.records": "webtraj.browser.env_results",
    "webtraj.curate.records": "webtraj.curate.chat_records",
    "webtraj.formats.mind2web.records": "webtraj.formats.mind2web.steps",
    "webtraj.execute.record": "webtraj.execute.recording_run",
    "webtraj.evaluate.scoring": "webtraj.evaluate.trajectory_scoring",
    "webtraj.evaluate.metrics": "webtraj.evaluate.metric_families",
    "webtraj.evaluate.step_metrics": "webtraj.evaluate.mind2web.step_metrics",
    # Three summary.py: the index's summary tables, a run's summary, a page's elements.
    "webtraj.store.summary": "webtraj.store.summary_tables",
    "webtraj.report.summary": "webtraj.report.run_summary",
    "webtraj.dom.summary": "webtraj.dom.interactive_elements",
    # A benchmark is one package (issue 40, point 1).
    "webtraj.evaluate.miniwob": "webtraj.suites.miniwob.evaluator",
    "webtraj.execute.suites.miniwob": "webtraj.suites.miniwob.suite",
    "webtraj.execute.suites.booking": "webtraj.suites.booking.suite",
    "webtraj.execute.suites.webarena_verified": "webtraj.suites.webarena_verified.suite",
    "webtraj.evaluate.webarena_verified": "webtraj.suites.webarena_verified.evaluate",
    "webtraj.formats.webarena_verified": "webtraj.suites.webarena_verified.logs",
    "webtraj.execute.suites.tasks_file": "webtraj.suites.tasks_file.suite",
    "webtraj.execute.suites.imported": "webtraj.suites.imported.suite",
}


def test_renamed_modules_live_only_under_their_new_names():
    for old, new in RENAMED.items():
        assert importlib.util.find_spec(old) is None, f"{old} is still there (now {new})"
        assert importlib.util.find_spec(new) is not None, f"{new} is missing"


def test_layer_contract_is_named_after_a_doc_in_the_repo():
    import re
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    for name in names:
        docs = re.findall(r"[\w./-]+\.md", name)
        assert docs, f"contract {name!r} names no doc"
        assert all((ROOT / doc).is_file() for doc in docs), name


def test_the_action_model_and_its_text_grammar_are_apart():
    import webtraj.model.action as model
    import webtraj.model.action_text as grammar

    for name in ("format_action", "parse_action", "parse_answer", "ACTION_PHRASE",
                 "ActionParseError", "ParsedAnswer"):
        assert hasattr(grammar, name) and not hasattr(model, name), name
    action = grammar.parse_action("type [7] [Paris \\[FR\\]] [0]")
    assert isinstance(action, model.Action)
    assert str(action) == action.to_text() == grammar.format_action(action)
    assert grammar.parse_action(action.to_text()) == action


def test_the_viewer_pages_and_its_guards_are_apart():
    import webtraj.view.security as guards

    for name in ("HostCheck", "SecurityHeaders", "NoTraceback", "trajectory_files",
                 "artifact_response", "CSP"):
        assert hasattr(guards, name), name
    app = ast.parse((SRC / "view" / "app.py").read_text(encoding="utf-8"))
    assert not [n.name for n in app.body if isinstance(n, ast.ClassDef)]
