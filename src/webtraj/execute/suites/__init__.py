"""Finding a suite: every kind of task source a run can have, by the suite registry.

Each suite is one package under `webtraj.suites`; the registry
(`webtraj.model.suite_registry`) names them by module path, and another distribution adds its
own with an entry point of the group `webtraj.suites`. This module loads them with the
plug-in loader, so execute imports no suite's package. Callers ask for a run's suite
(`suite_of_run`, `suite_of_config`) or a named one (`get_suite`) and use the protocol
(`webtraj.execute.suites.protocol.Suite`)."""

from __future__ import annotations

import functools
from typing import Any

from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession
from webtraj.model import InputError, RunInfo, Task
from webtraj.model.plugins import load_spec
from webtraj.model.run import RunConfig
from webtraj.model.suite_registry import IMPORTED, TASKS_FILE, entries

__all__ = ["ListOptions", "Suite", "SuiteSession", "get_suite", "named_suites",
           "parse_setting", "suite_of_config", "suite_of_run", "suite_of_sites",
           "suite_serving"]


def _load(spec: str, name: str) -> Suite:
    target = load_spec(spec, what="suite")
    suite = target() if isinstance(target, type) else target
    if not isinstance(suite, Suite):
        raise InputError(f"suite {name!r} ({spec}) is not a webtraj.execute.suites.Suite",
                         field="suite")
    if getattr(suite, "name", None) != name:  # runs record the name; it must find the suite
        raise InputError(f"suite {name!r} ({spec}) calls itself "
                         f"{getattr(suite, 'name', None)!r}", field="suite")
    return suite


@functools.cache
def _named() -> dict[str, Suite]:
    """Suites a user names (`run --suite NAME`, `sites tasks --suite NAME`), in listing
    order: the registry's, then those installed distributions publish."""
    return {e.name: _load(e.suite, e.name) for e in entries()}


@functools.cache
def _tasks_file() -> Suite:
    return _load(TASKS_FILE.suite, TASKS_FILE.name)


@functools.cache
def _imported() -> Suite:
    return _load(IMPORTED.suite, IMPORTED.name)


def named_suites() -> list[Suite]:
    return list(_named().values())


def get_suite(name: str) -> Suite:
    suite = _named().get(name)
    if suite is None:
        raise InputError(f"unknown suite {name!r}; available: {', '.join(_named())}",
                         field="suite")
    return suite


def suite_of_config(config: RunConfig) -> Suite:
    """The suite a run's settings name: `--suite NAME`, or the tasks file."""
    if config.suite:
        return get_suite(config.suite)
    if config.tasks_file:
        return _tasks_file()
    return _imported()


def suite_of_run(info: RunInfo) -> Suite:
    """The suite a stored run was made from; runs without settings (imports, older runs) are
    imported runs, or the sandbox's suite when they recorded one."""
    named = _named()
    if info.settings is not None and (info.settings.suite in named or
                                      info.settings.tasks_file):
        return suite_of_config(info.settings)
    if info.sandbox is not None and info.sandbox.suite in named:
        return named[info.sandbox.suite]
    return _imported()


def suite_serving(task: Task) -> Suite | None:
    """The named suite that serves the sites of a file's task, if any."""
    for suite in _named().values():
        if suite.serves(task):
            return suite
    return None


def suite_of_sites(info: RunInfo) -> Suite | None:
    """The named suite serving a run's recorded sites (the first, for a mixed file)."""
    named = _named()
    if info.sandbox is not None and info.sandbox.suite in named:
        return named[info.sandbox.suite]
    keys = set(info.site_urls)
    for suite in named.values():
        if suite.site_keys & keys:
            return suite
    return None


def parse_setting(name: str, text: str) -> Any:
    """A run setting given as text on a command line, in the syntax of the suite that reads
    it (MiniWoB++'s `--seeds 0-9`); the text itself when no suite declares one."""
    for suite in _named().values():
        parse = suite.setting_syntax.get(name)
        if parse is not None:
            return parse(text)
    return text
