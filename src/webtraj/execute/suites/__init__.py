"""The suite registry: every kind of task source a run can have, and the one place that
knows them by name. Callers ask for a run's suite (`suite_of_run`, `suite_of_config`) or a
named one (`get_suite`) and use the protocol (`webtraj.execute.suites.protocol.Suite`).

It lives in `execute`, the lowest layer that sees both the sandbox (`webtraj.sites`) and the
benchmark suites (`webtraj.suites`), which may not import each other. A new suite (e.g.
WebArena-Verified on a deployment) subclasses `Suite` and is added to `_NAMED`."""

from __future__ import annotations

from webtraj.execute.suites.booking import BookingSuite
from webtraj.execute.suites.imported import ImportedSuite
from webtraj.execute.suites.miniwob import MiniWoBSuite
from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession
from webtraj.execute.suites.tasks_file import TasksFileSuite
from webtraj.execute.suites.webarena_verified import WebArenaVerifiedSuite
from webtraj.model import InputError, RunInfo, Task
from webtraj.model.run import RunConfig

__all__ = ["ListOptions", "Suite", "SuiteSession", "get_suite", "named_suites",
           "suite_of_config", "suite_of_run", "suite_of_sites", "suite_serving"]

# Suites a user names (`run --suite NAME`, `sites tasks --suite NAME`), in listing order.
_NAMED: dict[str, Suite] = {s.name: s for s in (BookingSuite(), MiniWoBSuite(),
                                                 WebArenaVerifiedSuite())}
_TASKS_FILE = TasksFileSuite()
_IMPORTED = ImportedSuite()


def named_suites() -> list[Suite]:
    return list(_NAMED.values())


def get_suite(name: str) -> Suite:
    suite = _NAMED.get(name)
    if suite is None:
        raise InputError(f"unknown suite {name!r}; available: {', '.join(_NAMED)}",
                         field="suite")
    return suite


def suite_of_config(config: RunConfig) -> Suite:
    """The suite a run's settings name: `--suite NAME`, or the tasks file."""
    if config.suite:
        return get_suite(config.suite)
    if config.tasks_file:
        return _TASKS_FILE
    return _IMPORTED


def suite_of_run(info: RunInfo) -> Suite:
    """The suite a stored run was made from; runs without settings (imports, older runs) are
    imported runs, or the sandbox's suite when they recorded one."""
    if info.settings is not None and (info.settings.suite in _NAMED or
                                      info.settings.tasks_file):
        return suite_of_config(info.settings)
    if info.sandbox is not None and info.sandbox.suite in _NAMED:
        return _NAMED[info.sandbox.suite]
    return _IMPORTED


def suite_serving(task: Task) -> Suite | None:
    """The named suite that serves the sites of a file's task, if any."""
    for suite in _NAMED.values():
        if suite.serves(task):
            return suite
    return None


def suite_of_sites(info: RunInfo) -> Suite | None:
    """The named suite serving a run's recorded sites (the first, for a mixed file)."""
    if info.sandbox is not None and info.sandbox.suite in _NAMED:
        return _NAMED[info.sandbox.suite]
    keys = set(info.site_urls)
    for suite in _NAMED.values():
        if suite.site_keys & keys:
            return suite
    return None
