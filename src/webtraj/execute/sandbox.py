"""The sandbox sites for a run: served in a child process, with their tasks and oracle built
from the same (today, seed, ports) so that evaluation matches what the agent saw. A resumed
run serves them again on the ports it recorded, when those are free."""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Mapping
from contextlib import ExitStack
from urllib.parse import urlsplit

from webtraj.model.action import ActionKind
from webtraj.model.errors import InputError
from webtraj.model.run import RunConfig, SandboxInfo
from webtraj.model.task import Task
from webtraj.store import RunStore


class Sandbox:
    def __init__(self, today: dt.date, seed: int = 0, *, host: str = "127.0.0.1",
                 previous_urls: Mapping[str, str] | None = None) -> None:
        from webtraj.sites.server import SitesProcess

        self.today = today
        self.seed = seed
        self.process = SitesProcess(today=today, seed=seed, host=host,
                                    port_base=_port_base(previous_urls or {}))

    def __enter__(self) -> Sandbox:
        self.process.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.__exit__(*exc)

    @property
    def urls(self) -> dict[str, str]:
        return self.process.urls

    def tasks(self, suite: str) -> list[Task]:
        from webtraj.sites.tasks import booking_suite

        if suite != "booking":
            raise ValueError(f"unknown suite {suite!r}; available: booking")
        return booking_suite(self.today, seed=self.seed, host=self.process.host,
                             port_base=self.process.port_base)


def _port_base(urls: Mapping[str, str]) -> int | None:
    """The first port of the block the sites were served on (each site sits at its offset)."""
    from webtraj.sites.registry import SITE_CLASSES

    for cls in SITE_CLASSES:
        url = urls.get(cls.key)
        if url:
            port = urlsplit(url).port
            return port - cls.offset if port else None
    return None


def reachable_sandbox_host(host: str) -> str:
    """`host` if a browser can open URLs naming it. An unspecified address (0.0.0.0, ::)
    serves on every interface but names none: the task URLs and the site URLs the run
    records would lead nowhere, on this machine's browsers as on a cluster's."""
    try:
        unspecified = ipaddress.ip_address(host.strip().strip("[]")).is_unspecified
    except ValueError:
        unspecified = not host.strip()  # a host name, unless blank
    if unspecified:
        raise InputError(f"{host!r} names no machine (it means every interface): give an "
                         "address of this machine that every node reaches, e.g. its LAN "
                         "address, or 127.0.0.1 for this machine only", field="sandbox_host")
    return host


def open_suite_sandbox(stack: ExitStack, store: RunStore, config: RunConfig
                       ) -> tuple[Sandbox, dict[str, str] | None]:
    """Serve the sandbox for a run of `config.suite` (or of a task file naming its sites) at
    the run's recorded date, seed and ports; returns it and the session's URLs when they
    differ from the recorded ones (a trajectory made against them records its own)."""
    recorded = store.info.sandbox
    if recorded is None:
        recorded = SandboxInfo(suite=config.suite or "booking", seed=config.seed, today=(
            dt.date.fromisoformat(config.today) if config.today else dt.date.today()))
    sandbox = stack.enter_context(Sandbox(recorded.today, seed=recorded.seed,
                                          host=reachable_sandbox_host(config.sandbox_host),
                                          previous_urls=store.info.site_urls))
    if store.info.sandbox is None or not store.info.site_urls:
        store.update_info(sandbox=recorded, site_urls=dict(sandbox.urls))
    session = dict(sandbox.urls) if sandbox.urls != store.info.site_urls else None
    return sandbox, session


def sandbox_tasks(tasks: list[Task]) -> list[Task]:
    """The tasks of a task file that name a sandbox site (and so need it served)."""
    from webtraj.sites.registry import SITE_CLASSES

    keys = {cls.key for cls in SITE_CLASSES}
    return [t for t in tasks if t.site in keys and t.metadata.get("suite") == "booking"]


def file_sandbox_date(tasks: list[Task], config: RunConfig) -> tuple[str | None, int]:
    """The (today, seed) a task file's sandbox tasks were made for: `--today` wins, else the
    date and seed `tasks from-demos` wrote in their metadata (they must agree)."""
    found = {(str(m.get("today")), int(m.get("seed") or 0)) for t in tasks
             if isinstance(m := t.metadata.get("sandbox"), dict) and m.get("today")}
    if config.today:
        return config.today, config.seed
    if len(found) > 1:
        raise InputError(f"the task file's sandbox tasks were made for different dates "
                         f"{sorted(found)}; run them separately or give --today",
                         file=config.tasks_file, field="metadata.sandbox")
    return (found.pop() if found else (None, config.seed))


def rebase_task(task: Task, site_urls: dict[str, str]) -> Task:
    """`task` with its start URL and `goto` reference actions moved to the served sandbox
    site it names (a file's tasks carry the ports of the session that wrote them)."""
    base = site_urls.get(task.site or "")
    if not base or not task.start_url:
        return task
    parts = urlsplit(task.start_url)
    old = f"{parts.scheme}://{parts.netloc}"
    new = base.rstrip("/")

    def move(url: str) -> str:
        return new + url[len(old):] if url.startswith(old) else url

    refs = task.reference_actions
    if refs is not None:
        refs = tuple(a.model_copy(update={"value": move(a.value)})
                     if a.kind is ActionKind.GOTO and a.value else a for a in refs)
    return task.model_copy(update={"start_url": move(task.start_url),
                                   "reference_actions": refs})


def serve_named_sites(stack: ExitStack, store: RunStore, config: RunConfig,
                      tasks: list[Task]) -> tuple[list[Task], dict[str, str] | None]:
    """A task file whose tasks name sandbox sites gets them served (as --suite does), at
    the date and seed the tasks were made for; their URLs move to the served ports."""
    named = sandbox_tasks(tasks)
    if not named:
        return tasks, None
    today, seed = file_sandbox_date(named, config)
    config = config.model_copy(update={"today": today, "seed": seed})
    sandbox, session_urls = open_suite_sandbox(stack, store, config)
    urls = session_urls or store.info.site_urls
    wanted = {id(t) for t in named}
    return [rebase_task(t, urls) if id(t) in wanted else t for t in tasks], session_urls
