"""The sandbox sites: served in a child process, with their tasks and oracle built from the
same (today, seed, ports) so that evaluation matches what the agent saw. A resumed run serves
them again on the ports it recorded, when those are free (the booking suite,
`webtraj.suites.booking.suite`, decides what a run serves)."""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from webtraj.model.action import ActionKind
from webtraj.model.errors import InputError
from webtraj.model.task import Task


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

    def tasks(self) -> list[Task]:
        """The booking tasks for the served sites (same date, seed and ports)."""
        from webtraj.sites.tasks import booking_suite

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
