"""`webtraj COMMAND` imports only that command's module (a run starts sooner), and the
lazily built command line is the whole one."""

from __future__ import annotations

import subprocess
import sys

from webtraj.cli import app as app_module

PROBE = """
import sys
from webtraj.cli.app import main
sys.argv = ["webtraj", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("LOADED", " ".join(sorted(m for m in sys.modules if m.startswith("webtraj.cli."))))
"""


def _loaded(*argv: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                         check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("LOADED"))
    return set(line.split()[1:])


def test_a_command_imports_only_its_own_module() -> None:
    loaded = _loaded("run", "--help")
    assert "webtraj.cli.run" in loaded
    assert not loaded & {"webtraj.cli.curate", "webtraj.cli.train", "webtraj.cli.view",
                         "webtraj.cli.mind2web", "webtraj.cli.importers"}
    # A suite's commands come with the groups they join, and only with them.
    assert {"webtraj.cli.importers", "webtraj.cli.export", "webtraj.cli.eval"} <= _loaded(
        "import", "--help")
    assert "webtraj.cli.curate" in _loaded("--help")  # the root's help lists every command


def test_every_registered_name_is_a_command_of_the_whole_app() -> None:
    import typer.main

    whole = typer.main.get_command(app_module.app)
    names = set(whole.list_commands(None))  # type: ignore[attr-defined, arg-type]
    assert names == {*app_module.GROUPS, *app_module.COMMANDS, "schema"}
    for name in names:  # each built alone is the same command
        alone = typer.main.get_command(app_module.build_app(name))
        assert alone.list_commands(None) == [name]  # type: ignore[attr-defined, arg-type]
