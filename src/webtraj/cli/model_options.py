"""The options of every command that calls a model (`--llm`, `--no-cache`), written once: the
spec's form and the cache's meaning come from the run settings (`RunConfig.llm`, `no_cache`),
so `webtraj run` and the other commands say the same thing."""

from __future__ import annotations

from typing import Any

import typer

from webtraj.cli.run_settings import from_setting
from webtraj.model.run_settings import LLM_SPEC_FORM, RunConfig

NO_CACHE_HELP = RunConfig.model_fields["no_cache"].description or ""


def llm_help(used_for: str) -> str:
    """`--llm`'s help for a command whose model does `used_for`."""
    return f"Model for {used_for}: {LLM_SPEC_FORM}."


def llm_option(used_for: str) -> Any:
    return from_setting(typer.Option(None, "--llm", help=llm_help(used_for)), RunConfig, "llm")


def no_cache_option() -> Any:
    return from_setting(typer.Option(RunConfig.model_fields["no_cache"].default, "--no-cache",
                                     help=NO_CACHE_HELP), RunConfig, "no_cache")
