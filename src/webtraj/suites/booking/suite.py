"""The booking suite: webtraj's own five sandbox sites (`webtraj.sites`), served for a run at
one date and seed that the run keeps for its life, scored by the sandbox oracle and the
tasks' network checks. A file's booking tasks carry the date and seed they were made for
(`metadata.sandbox`) and are served as recorded."""

from __future__ import annotations

import datetime as dt
from contextlib import ExitStack
from typing import ClassVar

from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession, session_urls
from webtraj.model import InputError, Task
from webtraj.model.run import RunConfig, SandboxInfo
from webtraj.sites.sandbox import Sandbox, reachable_sandbox_host, rebase_task
from webtraj.sites.tasks.common import SUITE
from webtraj.store import RunStore


def _site_keys() -> frozenset[str]:
    from webtraj.sites.registry import SITE_CLASSES

    return frozenset(cls.key for cls in SITE_CLASSES)


def _date(text: str | None, what: str) -> dt.date:
    if not text:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{what} must be YYYY-MM-DD, got {text!r}", field="today") from None


class BookingSuite(Suite):
    name = SUITE
    summary = "120 tasks on the five sandbox sites served on loopback"
    evaluators = ("NetworkEventEvaluator", "constraints")
    headline = ("constraints",)
    explorable = True
    site_keys: ClassVar[frozenset[str]] = _site_keys()

    def list_tasks(self, options: ListOptions) -> list[Task]:
        from webtraj.sites.registry import DEFAULT_PORT_BASE
        from webtraj.sites.tasks import booking_suite

        today = _date(options.today, "--today")
        stamp = {"suite": self.name, "today": today.isoformat(), "seed": options.seed}
        tasks = booking_suite(today, seed=options.seed, host=options.host,
                              port_base=options.port_base or DEFAULT_PORT_BASE)
        return [t.model_copy(update={"metadata": {**t.metadata, "sandbox": stamp}})
                for t in tasks]

    def describe(self, options: ListOptions) -> list[str]:
        """Each sandbox site with its brand, port and placeholder."""
        from webtraj.sites.registry import DEFAULT_PORT_BASE, SITE_CLASSES

        base = options.port_base or DEFAULT_PORT_BASE
        return [f"{cls.key:8} {cls.brand:11} :{base + cls.offset}  __{cls.key.upper()}__  "
                f"{cls.tagline}" for cls in SITE_CLASSES]

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        sandbox, urls = self._serve(stack, store, config)
        return SuiteSession(tasks=sandbox.tasks(), session_urls=urls,
                            served_urls=dict(sandbox.urls))

    def _serve(self, stack: ExitStack, store: RunStore, config: RunConfig
               ) -> tuple[Sandbox, dict[str, str] | None]:
        """The sandbox at the run's recorded date, seed and ports (the first session records
        them); the session's URLs when they differ from the recorded ones."""
        recorded = store.info.sandbox
        if recorded is None:
            recorded = SandboxInfo(suite=self.name, seed=config.seed,
                                   today=_date(config.today, "--today"))
        sandbox = stack.enter_context(Sandbox(recorded.today, seed=recorded.seed,
                                              host=reachable_sandbox_host(config.sandbox_host),
                                              previous_urls=store.info.site_urls))
        if store.info.sandbox is None:
            store.update_info(sandbox=recorded)
        return sandbox, session_urls(store, sandbox.urls)

    def serve_tasks(self, stack: ExitStack, store: RunStore, config: RunConfig,
                    tasks: list[Task]) -> SuiteSession:
        today, seed, warnings = self._file_sandbox(tasks, config, store)
        sandbox, urls = self._serve(stack, store, config.model_copy(
            update={"today": today, "seed": seed}))
        served = urls or store.info.site_urls
        return SuiteSession(tasks=[rebase_task(t, served) for t in tasks], session_urls=urls,
                            served_urls=dict(sandbox.urls), warnings=warnings)

    def _file_sandbox(self, tasks: list[Task], config: RunConfig, store: RunStore
                      ) -> tuple[str, int, list[str]]:
        """The (today, seed) a file's booking tasks were made for: the run's recorded sandbox
        on resume, else `--today`, else the date and seed the tasks carry
        (`metadata.sandbox`, written by `sites tasks` and `tasks from-demos`; they must
        agree). Tasks that carry none are named in a warning with the date they get."""
        found: dict[tuple[str, int], list[str]] = {}
        undated: list[str] = []
        for t in tasks:
            stamp = t.metadata.get("sandbox")
            if isinstance(stamp, dict) and stamp.get("today"):
                key = (str(stamp["today"]), int(stamp.get("seed") or 0))
                found.setdefault(key, []).append(t.task_id)
            else:
                undated.append(t.task_id)
        if store.info.sandbox is not None:
            today, seed = store.info.sandbox.today.isoformat(), store.info.sandbox.seed
            why = "the date this run recorded"
        elif config.today:
            today, seed, why = config.today, config.seed, "--today"
        elif len(found) > 1:
            raise InputError(f"the task file's sandbox tasks were made for different dates "
                             f"{sorted(found)}; run them separately or give --today",
                             file=config.tasks_file, field="metadata.sandbox")
        elif found:
            (today, seed), = found
            why = "the date the file's other sandbox tasks carry"
        else:
            today, seed, why = dt.date.today().isoformat(), config.seed, "today's real date"
        warnings = []
        if undated:
            shown = ", ".join(undated[:5]) + (f" and {len(undated) - 5} more"
                                              if len(undated) > 5 else "")
            warnings.append(f"{len(undated)} sandbox task(s) carry no sandbox date "
                            f"(metadata.sandbox.today): {shown}; served at {today} "
                            f"(seed {seed}), {why}")
        return today, seed, warnings
