import orjson
from typer.testing import CliRunner

from factories import make_trajectory
from webtraj.cli.app import app
from webtraj.model import RunInfo, Score, Trajectory
from webtraj.store import RunStore

runner = CliRunner()


def _make_run(root, n=3):
    with RunStore.create(root, RunInfo(name=root.name, command="test")) as store:
        for i in range(n):
            t = make_trajectory(f"t{i}", site="hotels" if i else "cars", difficulty="medium")
            store.add_trajectory(t)
            store.add_scores([(t.trajectory_id, Score(evaluator="csr", value=i / (n - 1),
                                                      constraints=()))])
    return root


def test_version_and_help_examples():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and "webtraj" in result.output
    for cmd in (["schema"], ["runs", "list"], ["runs", "show"], ["runs", "export"]):
        result = runner.invoke(app, [*cmd, "--help"])
        assert result.exit_code == 0
        assert "Example:" in result.output, cmd


def test_schema_writes_json_schemas(tmp_path):
    result = runner.invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0
    schema = orjson.loads((tmp_path / "trajectory.schema.json").read_bytes())
    assert "schema_version" in schema["properties"]
    assert {p.name for p in tmp_path.iterdir()} >= {"task.schema.json", "score.schema.json"}


def test_runs_list_show_export(tmp_path):
    _make_run(tmp_path / "runs" / "a")
    _make_run(tmp_path / "runs" / "b", n=2)
    result = runner.invoke(app, ["runs", "list", str(tmp_path / "runs"), "--json"])
    assert result.exit_code == 0
    listed = orjson.loads(result.stdout)
    assert [(e["name"], e["trajectories"]) for e in listed] == [("a", 3), ("b", 2)]

    result = runner.invoke(app, ["runs", "show", str(tmp_path / "runs" / "a"), "--json"])
    assert result.exit_code == 0
    shown = orjson.loads(result.stdout)
    assert shown["info"]["name"] == "a"
    assert shown["evaluators"]["csr"]["mean"] == 0.5
    assert shown["evaluators"]["csr"]["sr"] == 1 / 3
    row = shown["trajectories"][0]
    assert set(row) >= {"task_id", "site", "difficulty", "agent", "trial", "n_steps", "error",
                        "scores"}
    assert row["site"] == "cars" and row["n_steps"] == 3 and row["scores"] == {"csr": 0.0}

    out = tmp_path / "a.jsonl"
    result = runner.invoke(app, ["runs", "export", str(tmp_path / "runs" / "a"), "--out",
                                 str(out)])
    assert result.exit_code == 0
    lines = out.read_bytes().splitlines()
    assert len(lines) == 3
    first = orjson.loads(lines[0])
    assert Trajectory.from_obj({k: v for k, v in first.items() if k != "scores"})
    assert first["scores"][0]["evaluator"] == "csr"


def test_runs_show_with_corrupt_trajectory(tmp_path):
    root = _make_run(tmp_path / "run")
    bad = root / "trajectories" / Trajectory.make_id("t1", "heuristic", 0) / "trajectory.json"
    data = orjson.loads(bad.read_bytes())
    del data["agent"]
    bad.write_bytes(orjson.dumps(data))
    result = runner.invoke(app, ["runs", "show", str(root), "--json"])
    assert result.exit_code == 0
    shown = orjson.loads(result.stdout)
    assert [t["task_id"] for t in shown["trajectories"]] == ["t0", "t2"]
    assert shown["corrupt"][0]["field"] == "agent"
    assert shown["corrupt"][0]["file"] == str(bad)
    result = runner.invoke(app, ["runs", "show", str(root)])
    assert result.exit_code == 0
    assert "corrupt trajectory" in result.output and "agent" in result.output


def test_runs_show_not_a_run(tmp_path):
    result = runner.invoke(app, ["runs", "show", str(tmp_path)])
    assert result.exit_code == 2
    assert "no run.json" in result.output


def _commands(group, prefix=()):
    import typer.main

    click_group = typer.main.get_command(group) if not hasattr(group, "commands") else group
    for name, cmd in click_group.commands.items():
        path = (*prefix, name)
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, path)
        yield path


def test_every_command_help_has_an_example():
    missing = []
    for path in _commands(app):
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        if "Example:" not in result.output:
            missing.append(" ".join(path))
    assert not missing, f"--help without an example: {missing}"
