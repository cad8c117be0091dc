"""The sandbox sites for a run: served in a child process, with their tasks and oracle built
from the same (today, seed, ports) so that evaluation matches what the agent saw. A resumed
run serves them again on the ports it recorded, when those are free."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from urllib.parse import urlsplit

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
