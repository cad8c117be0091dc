"""What a WebArena-Verified evaluator looks at for one task."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

from webtraj.suites.webarena_verified.evaluate.events import NetworkEvent
from webtraj.suites.webarena_verified.evaluate.sites import SiteUrls


@dataclass
class TaskContext:
    """One task's evaluation inputs.

    `task_type` is the task's expected response type (it decides how navigations and
    `retrieved_data` are judged); `entries` are HAR entry dicts, or events already built by
    `scan_events` (None when no trace is given).
    """

    task_id: str
    sites: tuple[str, ...]
    task_type: str
    site_urls: SiteUrls
    entries: list[dict[str, Any]] | list[NetworkEvent] | None = None
    agent_response: Any = None
    trace_file: str | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def is_navigate(self) -> bool:
        return self.task_type.upper() == "NAVIGATE"

    @property
    def is_retrieve(self) -> bool:
        return self.task_type.upper() == "RETRIEVE"

    @cached_property
    def evaluation_events(self) -> list[NetworkEvent]:
        """Trace events minus static assets, in trace order."""
        if self.entries is None:
            raise ValueError("no network trace for this task")
        events = (e if isinstance(e, NetworkEvent) else NetworkEvent(e, i)
                  for i, e in enumerate(self.entries))
        return [ev for ev in events if not ev.is_static]

    def render(self, strict: bool) -> Any:
        return partial(self.site_urls.render, sites=self.sites, strict=strict)

    def derender(self, strict: bool) -> Any:
        return partial(self.site_urls.derender, sites=self.sites, strict=strict)
