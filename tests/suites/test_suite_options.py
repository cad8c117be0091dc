"""A suite's options are its own (issue 40, point 1): each suite declares a typed options
model in its package, named in its registry entry; the core's settings models carry them
generically (`suite_options`) and name none of their fields; a suite reads them through one
function (`Suite.options`), which refuses an option the suite does not take; a run.json
written before (suite options as top-level settings) keeps loading, showing, scoring and
resuming alike."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import webtraj
from webtraj.cli.app import app
from webtraj.execute.suites import get_suite
from webtraj.model import InputError
from webtraj.model.run import RunConfig, RunInfo
from webtraj.model.suite_registry import NAMED, option_names, options_model
from webtraj.model.task_listing import ListOptions
from webtraj.store import RunStore

SRC = Path(webtraj.__file__).parent
# run.json as webtraj wrote it before suites had options models (main at 9e3de62: the
# fixed MiniWoB++ run of the snapshot, `--seeds 0-2`).
OLD_RUN_JSON = Path(__file__).parent.parent / "data" / "run-before-suite-options.json"
# The suite options the core's settings models used to declare.
FORMER_FIELDS = {"seeds", "subset", "site_urls_file", "accounts_file"}
# The core's settings models: what a run and a listing carry.
CORE_SETTINGS = ("model/run_settings.py", "model/task_listing.py")


def _fields(path: Path) -> set[str]:
    """Names annotated in a class body (the fields of a pydantic model or a dataclass)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {stmt.target.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            for stmt in node.body
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)}


def test_the_core_settings_models_declare_no_suites_option():
    offered = set(option_names())
    assert offered >= FORMER_FIELDS  # each is a suite's now
    for rel in CORE_SETTINGS:
        found = _fields(SRC / rel) & (offered | FORMER_FIELDS)
        assert not found, f"{rel} declares a suite's option: {sorted(found)}"
    assert {"seeds", "subset"}.isdisjoint(ListOptions.model_fields)
    assert FORMER_FIELDS.isdisjoint(RunConfig.model_fields)


def test_the_field_check_sees_a_field(tmp_path):
    """The check above catches a field written as the core used to write them."""
    path = tmp_path / "settings.py"
    path.write_text("class RunConfig(Base):\n    seeds: tuple[int, ...] = ()\n    x = 1\n")
    assert _fields(path) == {"seeds"}


def test_each_suite_declares_its_options_in_its_own_package():
    declared = {e.name: e.options for e in NAMED if e.options}
    assert set(declared) == {"miniwob", "webarena-verified"}
    for name, spec in declared.items():
        module = spec.partition(":")[0]
        package = "webtraj.suites." + name.replace("-", "_") + "."
        assert module.startswith(package), (name, spec)
    assert set(options_model("miniwob").model_fields) == {"seeds"}
    assert set(options_model("webarena-verified").model_fields) == {
        "subset", "site_urls_file", "accounts_file"}
    assert options_model("booking").model_fields == {}


def test_a_suite_reads_its_options_typed_and_refuses_others():
    config = RunConfig(agent="heuristic", suite="miniwob",
                       suite_options={"seeds": [0, 2]})
    assert get_suite("miniwob").options(config).seeds == (0, 2)
    listing = ListOptions(suite_options={"subset": "hard"})
    assert get_suite("webarena-verified").options(listing).subset == "hard"
    with pytest.raises(InputError, match="the booking suite takes no option 'seeds'") as err:
        get_suite("booking").options(config)
    assert err.value.field == "seeds"
    with pytest.raises(InputError, match=r"the miniwob suite takes no option 'subset' "
                                         r"\(its options: seeds\)"):
        get_suite("miniwob").options(ListOptions(suite_options={"subset": "hard"}))
    with pytest.raises(InputError) as err:
        get_suite("miniwob").options(RunConfig(agent="x", suite_options={"seeds": "many"}))
    assert err.value.field == "seeds"


def test_the_api_takes_a_suites_options_by_their_names():
    import webtraj.api as wt

    config = wt.run_config({"seeds": range(3), "subset": "hard"}, agent="heuristic")
    assert config.suite_options.model_extra == {"seeds": (0, 1, 2), "subset": "hard"}
    assert "seeds" not in config.model_dump() and "subset" not in config.model_dump()
    assert "    seeds (()): MiniWoB++ seeds" in wt.run.__doc__


@pytest.mark.parametrize("args", [
    ["run", "--suite", "booking", "--seeds", "0-2", "--agent", "heuristic"],
    ["run", "--suite", "miniwob", "--subset", "hard", "--agent", "heuristic"],
])
def test_an_option_the_suite_does_not_take_is_refused_before_the_run(tmp_path, args):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [*args, "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    option = args[3].removeprefix("--")
    assert f"the {args[2]} suite takes no option {option!r}" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not out.exists()


def test_sites_tasks_refuses_an_option_the_suite_does_not_take(tmp_path):
    out = tmp_path / "t.jsonl"
    result = CliRunner().invoke(app, ["sites", "tasks", "--suite", "booking", "--subset",
                                      "hard", "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "the booking suite takes no option 'subset'" in result.output
    assert not out.exists()


def test_a_run_json_from_before_loads_with_its_options_under_suite_options():
    info = RunInfo.model_validate_json(OLD_RUN_JSON.read_bytes())
    assert info.settings is not None
    assert info.settings.suite_options.model_extra == {"seeds": [0, 1, 2]}
    assert get_suite("miniwob").options(info.settings).seeds == (0, 1, 2)
    # A run of another suite wrote the options unset; they are dropped, not refused.
    old = json.loads(OLD_RUN_JSON.read_bytes())["settings"]
    booking = {**old, "suite": "booking", "seeds": [], "subset": None}
    config = RunConfig.model_validate(booking)
    assert config.suite_options.model_extra == {}
    get_suite("booking").options(config)


def _old_layout(run: Path) -> None:
    """Rewrite run.json's settings as webtraj wrote them before: the suite options as
    top-level keys where `suite_options` stands."""
    data = json.loads((run / "run.json").read_bytes())
    settings: dict = {}
    for key, value in data["settings"].items():
        if key == "suite_options":
            settings.update(value)
        else:
            settings[key] = value
    assert "suite_options" not in settings and "seeds" in settings
    data["settings"] = settings
    (run / "run.json").write_text(json.dumps(data, indent=2))


def _show(run: Path) -> dict:
    result = CliRunner().invoke(app, ["runs", "show", str(run), "--json"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown.pop("path") == str(run)
    return shown


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Chromium")
def test_an_old_run_shows_rescores_and_resumes_as_it_was(tmp_path):
    pytest.importorskip("miniwob", reason="the MiniWoB++ suite needs the 'miniwob' extra")
    new = tmp_path / "new"
    command = ["run", "--suite", "miniwob", "--task-ids", "click-button", "--seeds", "0-1",
               "--agent", "heuristic", "--max-steps", "1", "--timeout", "60"]
    result = CliRunner().invoke(app, [*command, "--out", str(new)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    old = tmp_path / "old"
    shutil.copytree(new, old)
    _old_layout(old)
    assert '"seeds": [\n      0,\n      1\n    ]' in (old / "run.json").read_text()

    shown = _show(new)
    assert shown["info"]["settings"]["suite_options"] == {"seeds": [0, 1]}
    assert _show(old) == shown
    for run in (new, old):
        result = CliRunner().invoke(app, ["eval", "--run", str(run)], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
    assert _show(old) == _show(new)
    # The same command resumes the old run: both episodes done, none run again.
    result = CliRunner().invoke(app, [*command, "--out", str(old)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "resuming: 2 episode(s) already done" in result.output
    with RunStore.open(old) as store:
        assert len(list(store.iter_trajectories())) == 2
        assert get_suite("miniwob").options(store.info.settings).seeds == (0, 1)
