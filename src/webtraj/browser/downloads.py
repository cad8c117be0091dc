"""Downloads of an episode: saved into the episode's scratch folder, recorded, never kept.

Rule: with `EnvConfig.downloads_dir` set, a download a page starts is saved there under a safe
name (Playwright's in-flight copy is deleted once saved) and recorded (URL, suggested name,
size, SHA-256). The folder is part of the episode's scratch, which is dropped when the run
ends: a run stores the records, never the files (a page chooses their content and size).
Without `downloads_dir`, the context refuses downloads and nothing is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import time
from pathlib import Path

from playwright.async_api import BrowserContext, Download, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.model.episode import DownloadRecord

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_NAME = 80


def safe_file_name(index: int, suggested: str) -> str:
    """`NNN-<name>`: the page's suggested name reduced to safe characters (no separators, no
    leading dot), numbered so two downloads never share a file."""
    stem = _UNSAFE.sub("_", suggested).strip("._")[:_MAX_NAME] or "download"
    return f"{index:03d}-{stem}"


def _digest(path: Path) -> tuple[int, str]:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return path.stat().st_size, h.hexdigest()


class DownloadKeeper:
    """Saves and records every download of a context's pages into one folder."""

    def __init__(self, context: BrowserContext, folder: Path) -> None:
        self.folder = folder
        self.records: list[DownloadRecord] = []
        self._count = 0
        self._tasks: set[asyncio.Task[None]] = set()
        context.on("page", self.watch)

    def watch(self, page: Page) -> None:
        page.on("download", self._started)

    def _started(self, download: Download) -> None:
        task = asyncio.ensure_future(self._save(download))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _save(self, download: Download) -> None:
        self._count += 1
        name = safe_file_name(self._count, download.suggested_filename)
        dest = self.folder / name
        record = {"url": download.url, "suggested_filename": download.suggested_filename,
                  "time": time.time()}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            await download.save_as(dest)
            size, sha = await asyncio.to_thread(_digest, dest)
            record.update(file=name, bytes=size, sha256=sha)
        except (PlaywrightError, OSError) as exc:
            dest.unlink(missing_ok=True)
            record["error"] = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        finally:
            # Playwright's own copy: the file lives only in the episode's folder.
            with contextlib.suppress(PlaywrightError):
                await download.delete()
        self.records.append(DownloadRecord.model_validate(record))

    async def finish(self) -> tuple[DownloadRecord, ...]:
        """Wait for downloads still being saved (the context is closed: they end now)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        return tuple(self.records)
