"""Every command that calls a model takes `--llm` and `--no-cache` with one meaning: the
spec's form and the cache's help are written once (the run settings), whatever the command."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.model.run_settings import LLM_SPEC_FORM, RunConfig

COMMANDS = (["run"], ["eval"], ["curate"], ["judges", "compare"], ["tasks", "generate"],
            ["tasks", "constraints"], ["mind2web", "predict"], ["mind2web", "run"],
            ["llm", "check"])


def _help(args: list[str]) -> str:
    res = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    return re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", res.output))


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_each_model_command_names_the_model_one_way(args):
    text = _help(args)
    assert "--llm" in text and re.sub(r"\s+", " ", LLM_SPEC_FORM) in text, text
    if "--no-cache" in text:
        assert RunConfig.model_fields["no_cache"].description in text, text
