"""The stable name of a sandbox site's origin. Every run serves the sites on free ports, so
the same page has a different URL in each run; what a model is shown (and trained on) names
the site by the origin it has on the default ports instead (`webtraj sites serve`), which
is the same in every run, on every host."""

from __future__ import annotations

from urllib.parse import urlsplit

from webtraj.model.task import Task

STABLE_HOST = "127.0.0.1"


def stable_origin(task: Task) -> tuple[str, str] | None:
    """(origin the task's site is served on in its run, its stable origin) for a sandbox
    task (its metadata names the site's placeholder); None for any other task."""
    from webtraj.sites.registry import DEFAULT_PORT_BASE, SITE_CLASSES
    from webtraj.sites.tasks.common import SUITE

    placeholder = task.metadata.get("placeholder")
    if task.metadata.get("suite") != SUITE or not task.start_url or not isinstance(
            placeholder, str):
        return None

    offsets = {f"__{cls.key.upper()}__": cls.offset for cls in SITE_CLASSES}
    parts = urlsplit(task.start_url)
    if placeholder not in offsets or not parts.scheme or not parts.netloc:
        return None
    return (f"{parts.scheme}://{parts.netloc}",
            f"http://{STABLE_HOST}:{DEFAULT_PORT_BASE + offsets[placeholder]}")
