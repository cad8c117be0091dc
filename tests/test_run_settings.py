"""Run settings are declared once (`RunConfig`): `webtraj run` and `record` offer them with
the model's defaults, bounds and help, the Python API takes them by the model's names, and a
run made either way records the same settings and definition. Every other command with a
settings model takes its options from the model the same way (no default written twice)."""

import ast
import functools
import inspect
import json
from pathlib import Path

import click
import pytest
import typer
from typer.testing import CliRunner

import webtraj.api as wt
from factories import SANDBOX_TODAY
from webtraj.agents.mindact.settings import MindActOptions, PredictSettings, RankSettings
from webtraj.cli.app import app
from webtraj.cli.run_settings import SETTING_MARK, setting_default, setting_of, settings_table
from webtraj.curate.settings import CurateSettings
from webtraj.evaluate.constraints.evaluator import ConstraintsOptions
from webtraj.evaluate.mind2web.step_metrics import ScoreSettings
from webtraj.execute.curation import CurateRun
from webtraj.execute.explore import ExploreOptions
from webtraj.execute.suites.protocol import ListOptions
from webtraj.generate.options import DuplicateSettings, GenerateOptions, RefreshSettings
from webtraj.model import InputError
from webtraj.model.run import RunConfig, RunDefinition
from webtraj.model.suite_registry import option_names, options_declaring, options_model
from webtraj.record.session import RecordSettings
from webtraj.train.config import LoraSettings, TrainSettings
from webtraj.train.mind2web_sft import SftExportSettings

FIELDS = RunConfig.model_fields
# The suites' own options (their options models, through the registry), which `webtraj run`
# offers beside the run settings.
SUITE_OPTIONS = {name: options_declaring(name).model_fields[name] for name in option_names()}
# Options of the commands that are not one run setting, and why.
NOT_SETTINGS = {
    "run": {"agent_option": "pairs merged into agent_options",
            "agent_options_file": "a file read into agent_options",
            "action_set": "an option of the llm agent (agent_options['action_set'])",
            "prices": "read when the run's cost is shown, not part of the run",
            "out": "where the run is", "new": "what to do with a run already there"},
    "record": {"suite": "record's own help (a person records booking tasks)",
               "task_ids": "record's own help (no MiniWoB++ ids)",
               "timeout": "a person's time per task (RecordSettings), not an episode's",
               "url": "a one-off task", "intent": "a one-off task", "html": "RecordSettings",
               "headed": "the recording window", "cdp_port": "the recording window",
               "idle_ms": "RecordSettings", "out": "where the run is"},
}


def _options(command: str) -> dict:
    group = typer.main.get_command(app)
    cmd = group.get_command(click.Context(group), command)
    found = {p.name: p for p in cmd.params if p.param_type_name == "option"}
    assert "out" in found, f"webtraj {command}'s options not found"
    return found


@pytest.mark.parametrize("command", ["run", "record"])
def test_each_option_is_a_setting_with_the_models_default_bounds_and_help(command):
    for name, option in _options(command).items():
        found = setting_of(name)
        if found is None:
            assert name in NOT_SETTINGS[command], f"--{name}: neither a setting nor listed"
            continue
        field_name, negated = found
        if name in NOT_SETTINGS[command]:
            continue
        field = FIELDS.get(field_name) or SUITE_OPTIONS[field_name]
        assert option.secondary_opts == [], f"{option.opts}: no --no-X twin"
        text = field.description.rstrip(".")
        if negated:
            text = f"Do not {text[0].lower()}{text[1:]}"
            assert field.annotation is bool and field.default is True, name
            assert option.default is False and option.is_flag, name
        elif field.is_required():
            assert option.required, name
        else:
            default = field.get_default(call_default_factory=True)
            assert option.default == (None if default in ((), {}) else default), name
        assert (option.help or "").startswith(text), (name, option.help)
        for rule in field.metadata:
            if hasattr(rule, "ge"):
                assert option.min == rule.ge, name
            if hasattr(rule, "le"):
                assert option.max == rule.le, name


def test_every_setting_has_an_option_of_webtraj_run():
    offered = {found[0] for name in _options("run") if (found := setting_of(name))}
    missing = set(FIELDS) - offered
    # agent_options is spelled as --agent-option pairs and an --agent-options file;
    # suite_options as each suite's own options.
    assert missing == {"agent_options", "suite_options"}
    assert set(SUITE_OPTIONS) <= offered
    assert {"agent_option", "agent_options_file"} <= set(_options("run"))


def test_the_api_takes_the_settings_by_the_models_names():
    config = wt.run_config({"seeds": range(2), "task_ids": ["a"], "max_steps": 4,
                            "evaluators": ["constraints:steps=all"],
                            "site_urls_file": Path("urls.json")}, agent="heuristic")
    assert config.task_ids == ("a",) and config.max_steps == 4
    assert config.suite_options.model_extra == {"seeds": (0, 1),
                                                "site_urls_file": "urls.json"}
    assert config.evaluators == ({"evaluator": "constraints", "steps": "all"},)
    assert config.workers == FIELDS["workers"].default
    with pytest.raises(InputError, match="unknown setting 'max_step'") as err:
        wt.run_config({"max_step": 4}, agent="heuristic")
    assert err.value.field == "max_step"
    with pytest.raises(InputError, match="greater than or equal to 1") as err:
        wt.run_config({"workers": 0}, agent="heuristic")
    assert err.value.field == "workers"
    with pytest.raises(InputError, match="unknown setting 'tasks_file'"):
        wt.run_config({"tasks_file": "tasks.jsonl"}, agent="heuristic")
    # help(wt.run) lists every setting with its default, from the same fields.
    for name in [*FIELDS, *SUITE_OPTIONS]:
        if name not in ("agent", "tasks_file"):
            assert f"    {name} (" in wt.run.__doc__, name


def test_a_run_from_the_cli_and_from_the_api_records_the_same_settings(tmp_path):
    """The same settings, given as options and as keywords (some the API did not take before:
    screenshot encoding, the sandbox host), are recorded alike in run.json."""
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    res = CliRunner().invoke(app, [
        "run", "--suite", "booking", "--agent", "replay", "--today", SANDBOX_TODAY,
        "--task-ids", "booking.hotels.01", "--max-steps", "12", "--seed", "1",
        "--screenshot-format", "jpeg", "--screenshot-quality", "50",
        "--sandbox-host", "127.0.0.1", "--allow", "http://127.0.0.1:9",
        "--timeout", "120", "--out", str(cli_out)])
    assert res.exit_code == 0, res.output
    wt.run(suite="booking", agent="replay", today=SANDBOX_TODAY,
           task_ids=["booking.hotels.01"], max_steps=12, seed=1, screenshot_format="jpeg",
           screenshot_quality=50, sandbox_host="127.0.0.1",
           allow_origins=["http://127.0.0.1:9"], timeout_s=120, out=api_out, report=False)
    cli, api = (json.loads((out / "run.json").read_bytes()) for out in (cli_out, api_out))
    assert cli["settings"] == api["settings"]
    assert cli["settings"]["screenshot_format"] == "jpeg"
    assert cli["definition"] == api["definition"]
    assert RunDefinition.model_validate(cli["definition"]).max_steps == 12
    assert cli["sandbox"] == api["sandbox"]


def test_the_docs_list_the_settings_as_declared():
    text = (Path(__file__).parent.parent / "docs" / "reference.md").read_text()
    start = text.index("-->\n", text.index("<!-- run-settings:")) + 4
    table = text[start:text.index("<!-- /run-settings -->")]
    assert table == settings_table(), (
        "docs/reference.md's run settings table is out of date: replace it with "
        "webtraj.cli.run_settings.settings_table()'s output")
    assert "| `--max-steps` | `max_steps` | `30` |" in table


def test_run_help_fits_80_columns_with_every_option_whole():
    res = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    for option in _options("run").values():
        for flag in option.opts:  # a flag cut short ("--episodes-per…") would not be found
            assert f" {flag} " in res.output, flag


# Every command and the settings models its options set (none: the command has no settings
# model; its options are its own). A new command must be added here.
SETTINGS_MODELS = {
    "run": (RunConfig, options_model("miniwob"), options_model("webarena-verified")),
    "record": (RunConfig, RecordSettings),
    "explore": (ExploreOptions,), "train": (TrainSettings, LoraSettings),
    "curate": (CurateSettings, CurateRun),
    "sites tasks": (ListOptions, options_model("miniwob"), options_model("webarena-verified")),
    "sites list": (ListOptions,),
    "tasks generate": (GenerateOptions, DuplicateSettings),
    "tasks refresh-dates": (RefreshSettings,),
    # The sandbox's own serving: its seed is a run's (host, ports and date are its own).
    "sites serve": (RunConfig,),
    "view": (), "report": (), "distill": (), "schema": (),
    "runs list": (), "runs show": (), "runs upgrade": (), "runs export": (),
    "llm check": (), "llm scripted-server": (), "llm serve-local": (),
    "llm cache stats": (), "llm cache clear": (),
    "eval": (), "eval webarena-verified": (), "judges compare": (ConstraintsOptions,),
    "mind2web score": (ScoreSettings,), "mind2web rank": (RankSettings,),
    "mind2web predict": (PredictSettings,), "mind2web run": (PredictSettings, RankSettings),
    "mind2web export-sft": (SftExportSettings,),
    "import browser-use": (), "import webvoyager": (), "import mind2web": (),
    "import webarena-verified": (),
    "tasks constraints": (), "tasks from-demos": (),
    "export mind2web": (), "export webarena-verified": (),
}
# Options spelled otherwise than the field they set.
FIELD_OF = {("record", "timeout"): "timeout_s", ("train", "lora_r"): "r",
            ("train", "lora_alpha"): "alpha", ("train", "lora_dropout"): "dropout",
            ("curate", "workers"): "num_cpus", ("tasks generate", "n"): "per_level",
            ("mind2web score", "reference_trailing"): "drop_trailing_unranked"}
# Options named like a field of the command's model that are the command's own, and why.
OWN_OPTIONS = {
    ("record", "suite"): "record's own help (a person records booking tasks)",
    ("record", "task_ids"): "record's own help (no MiniWoB++ ids)",
    ("curate", "judge"): "the model requires one; the command's default is the run's judge",
    ("curate", "run"): "required; optional to click because curate is also a group",
    ("curate", "out"): "required; optional to click because curate is also a group",
    ("tasks generate", "levels"): "the model requires parsed levels; the command offers all",
    ("tasks generate", "today"): "the model requires a date; the command's default is now",
    ("sites serve", "today"): "the served date (default: the real date), not a run's",
}


@functools.cache
def _commands() -> dict:
    """Every command of `webtraj` (a group with its own options, like curate, counts)."""
    found = {}

    def walk(cmd, path):
        group = hasattr(cmd, "list_commands")
        if path and cmd.callback is not None and (not group or cmd.params):
            found[" ".join(path)] = cmd
        for name in (cmd.list_commands(None) if hasattr(cmd, "list_commands") else ()):
            walk(cmd.get_command(None, name), [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def _declared(cmd) -> dict:
    """The typer options as the command's function declares them (parameter -> OptionInfo)."""
    function = inspect.unwrap(cmd.callback)
    return {name: p.default for name, p in inspect.signature(function).parameters.items()}


def test_every_command_is_listed_with_its_settings_models():
    assert set(_commands()) == set(SETTINGS_MODELS)


@pytest.mark.parametrize("command", sorted(SETTINGS_MODELS))
def test_no_option_writes_a_default_its_settings_model_declares(command):
    """An option that sets a field of the command's settings model takes its default, bounds
    and help from the field (`setting(...)`): written in the command, they could drift."""
    cmd = _commands()[command]
    declared = _declared(cmd)
    models = SETTINGS_MODELS[command]
    for option in (p for p in cmd.params if p.param_type_name == "option"):
        name = FIELD_OF.get((command, option.name), option.name)
        negated = name.startswith("no_") and not any(name in m.model_fields for m in models)
        field_name = name[3:] if negated else name
        owners = [m for m in models if field_name in m.model_fields]
        if not owners or (command, option.name) in OWN_OPTIONS:
            continue
        mark = getattr(declared[option.name], SETTING_MARK, None)
        assert mark is not None, (
            f"webtraj {command} {option.opts[0]}: writes its own default/help; take them from "
            f"{owners[0].__name__}.{field_name} with setting(..., model=...)")
        source, source_field = mark
        assert source_field == field_name, (command, option.name, mark)
        field = source.model_fields[source_field]
        # The model the option sets has the default the option was made from (llm and
        # no_cache come from RunConfig through the shared --llm/--no-cache options).
        assert source in owners or all(
            m.model_fields[field_name].get_default(call_default_factory=True)
            == field.get_default(call_default_factory=True) for m in owners), (command, name)
        if option.required or field.is_required():
            assert option.required and field.is_required(), (command, option.name)
        else:
            default = field.get_default(call_default_factory=True)
            allowed = [setting_default(source_field, negate=negated, model=source)]
            if isinstance(default, tuple):  # spelled comma-separated on the command line
                allowed.append(",".join(map(str, default)))
            assert option.default in allowed, (command, option.name)
        if source in owners:
            text = (field.description or "").rstrip(".")
            if negated:
                text = f"Do not {text[0].lower()}{text[1:]}"
            assert text and text in (option.help or ""), (command, option.name)
        for rule in field.metadata:
            if hasattr(rule, "ge"):
                assert option.min == rule.ge, (command, option.name)
            if hasattr(rule, "le"):
                assert option.max == rule.le, (command, option.name)


# Settings models besides the commands' own whose fields a command line may set under the
# same name (the live agent's options share the prediction's top_k and seed).
OTHER_SETTINGS_MODELS = (MindActOptions,)
CLI_SOURCES = Path(__file__).parent.parent / "src" / "webtraj"


# Options whose default is written as text under the name of a settings field that means
# something else (file, parameter): why. A number has no such excuse.
OTHER_MEANING = {
    ("cli/export.py", "agent"): "whose trajectories to export, not the agent a run runs",
    ("cli/tasks.py", "agent"): "whose trajectories become tasks, not the agent a run runs",
    ("cli/importers.py", "agent"): "the name imported trajectories are recorded under",
    ("cli/llm.py", "prompt"): "the text `llm check` sends, not a judge's prompt",
    ("cli/llm.py", "host"): "where the local model server listens",
    ("cli/sites.py", "host"): "the interface the sandbox binds, not the start URLs' host",
}


def literal_defaults(root: Path) -> list[tuple[str, str, object]]:
    """(file:line, parameter, value) of each typer option of the commands under `root`
    (cli/ and the suites' commands) whose default is written as a number or a text."""
    found = []
    files = [*(root / "cli").glob("*.py"), *(root / "suites").glob("*/commands*.py")]
    for path in sorted(files):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            args = [*fn.args.posonlyargs, *fn.args.args]
            pairs = [*zip(args[len(args) - len(fn.args.defaults):], fn.args.defaults,
                          strict=True),
                     *zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)]
            for arg, default in pairs:
                if not (isinstance(default, ast.Call) and default.args
                        and ast.unparse(default.func) == "typer.Option"):
                    continue
                first = default.args[0]
                if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
                    first = first.operand
                if isinstance(first, ast.Constant) and type(first.value) in (int, float, str):
                    found.append((f"{path.relative_to(root)}:{default.lineno}", arg.arg,
                                  ast.literal_eval(default.args[0])))
    return found


def test_no_command_writes_a_number_a_settings_model_declares():
    """A number or text written as an option's default where a settings model has a field
    of the option's name is a default written twice (`webtraj mind2web predict --top-k 50`
    beside MindActOptions.top_k, `--seed 0` beside a model's seed, `--ranker bm25`): take it
    from the model, or say why the option means something else (OTHER_MEANING)."""
    models = {m for ms in SETTINGS_MODELS.values() for m in ms} | set(OTHER_SETTINGS_MODELS)
    owners: dict[str, list[str]] = {}
    for model in models:
        for name in model.model_fields:
            owners.setdefault(name, []).append(model.__name__)
    written = [(where, name, value, sorted(owners[name]))
               for where, name, value in literal_defaults(CLI_SOURCES) if name in owners
               and not (isinstance(value, str)
                        and (where.split(":")[0], name) in OTHER_MEANING)]
    assert written == [], "options that write a default a settings model holds: " + "; ".join(
        f"{where} {name}={value!r} ({', '.join(models)})" for where, name, value, models
        in written)
    # The scan sees the options it must judge (a number it ignores would pass unseen).
    seen = {(where.split(":")[0], name) for where, name, _ in literal_defaults(CLI_SOURCES)}
    assert ("cli/view.py", "port") in seen and set(OTHER_MEANING) <= seen

