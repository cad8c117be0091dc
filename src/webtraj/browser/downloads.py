"""Downloads of an episode: saved into the episode's scratch folder, recorded, never kept.

Rule: with `EnvConfig.downloads_dir` set, a download a page starts is saved there under a safe
name (Playwright's in-flight copy is deleted once saved) and recorded (URL, suggested name,
size, SHA-256). The folder is part of the episode's scratch, which is dropped when the run
ends: a run stores the records, never the files (a page chooses their content and size).
Without `downloads_dir`, the context refuses downloads and nothing is written.

A page chooses a download's size, so two caps bound what an episode writes: each file
(`max_download_bytes`) and all of an episode's files together (`max_episode_download_bytes`).
While a download is in flight its partial file (Chromium's `.crdownload` in the worker's
scratch) is watched; once it passes what the caps allow, its first bytes up to the cap are
kept, the download is cancelled and the record says where and why it was cut (`cut_at`,
`cut_by`). A download that finished between two looks is cut to the cap the same way, so the
kept file never exceeds the cap; only the in-flight file may briefly run past it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import BrowserContext, Download, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.model.episode import DownloadRecord
from webtraj.model.run_settings import run_default

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


# How often an in-flight download's size is looked at (bounds the disk it can take past a cap).
_WATCH_S = 0.05


def _in_flight_file(download: Download) -> Path | None:
    """The partial file Chromium writes while `download` is in flight. Playwright names the
    finished file (its artifact's path) but has no public call for it before the end; without
    it, a download is cut only once it has finished."""
    try:
        path = download._impl_obj._artifact._initializer["absolutePath"]  # noqa: SLF001
    except (AttributeError, KeyError, TypeError):
        return None
    return Path(f"{path}.crdownload") if isinstance(path, str) and path else None


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


def _copy_head(src: Path, dest: Path, limit: int) -> None:
    """The first `limit` bytes of `src` (a file still being written) into `dest`."""
    left = limit
    if not src.exists():  # it finished (and lost its suffix) after the last look
        src = src.with_suffix("")
    with src.open("rb") as f, dest.open("wb") as out:
        while left > 0 and (chunk := f.read(min(1 << 20, left))):
            out.write(chunk)
            left -= len(chunk)


class DownloadKeeper:
    """Saves and records every download of a context's pages into one folder, within the
    caps (module docstring)."""

    def __init__(self, context: BrowserContext, folder: Path, *,
                 max_file_bytes: int = run_default("max_download_bytes"),
                 max_episode_bytes: int = run_default("max_episode_download_bytes")) -> None:
        self.folder = folder
        self.max_file_bytes = max_file_bytes
        self.max_episode_bytes = max_episode_bytes
        self.records: list[DownloadRecord] = []
        self._count = 0
        self._kept = 0  # bytes of the files kept so far
        self._in_flight: dict[int, int] = {}  # bytes counted for each download in flight
        self._tasks: set[asyncio.Task[None]] = set()
        context.on("page", self.watch)

    def watch(self, page: Page) -> None:
        page.on("download", self._started)

    def _started(self, download: Download) -> None:
        task = asyncio.ensure_future(self._save(download))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _allowance(self, n: int) -> tuple[int, Literal["file", "episode"]]:
        """How many bytes download `n` may keep, and which cap sets it."""
        others = sum(b for k, b in self._in_flight.items() if k != n)
        episode_left = max(0, self.max_episode_bytes - self._kept - others)
        if episode_left < self.max_file_bytes:
            return episode_left, "episode"
        return self.max_file_bytes, "file"

    async def _watch(self, download: Download, n: int, head: Path, cut: dict[str, Any],
                     stop: asyncio.Event) -> None:
        """Cut download `n` once its partial file passes its allowance: its first bytes go to
        `head`, the rest is cancelled. Ends when `stop` is set (never cancelled midway)."""
        partial = _in_flight_file(download)
        while partial is not None and not stop.is_set():
            limit, by = self._allowance(n)
            size = _size(partial)
            self._in_flight[n] = min(size, limit)
            if size > limit:
                if limit > 0:
                    await asyncio.to_thread(_copy_head, partial, head, limit)
                cut.update(cut_at=limit, cut_by=by)
                with contextlib.suppress(PlaywrightError):
                    await download.cancel()
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), _WATCH_S)

    async def _save(self, download: Download) -> None:
        self._count += 1
        n = self._count
        name = safe_file_name(n, download.suggested_filename)
        dest, head = self.folder / name, self.folder / f".{name}.head"
        record: dict[str, Any] = {"url": download.url,
                                  "suggested_filename": download.suggested_filename,
                                  "time": time.time()}
        cut: dict[str, Any] = {}
        stop = asyncio.Event()
        self._in_flight[n] = 0
        watcher: asyncio.Future[None] | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            watcher = asyncio.ensure_future(self._watch(download, n, head, cut, stop))
            try:
                await download.save_as(dest)
            except PlaywrightError:
                stop.set()
                await watcher
                if not cut:
                    raise
                if cut["cut_at"] > 0:  # the head the watcher kept is the file
                    os.replace(head, dest)
            else:
                stop.set()
                await watcher
                limit, by = self._allowance(n)
                if not cut and dest.stat().st_size > limit:  # finished between two looks
                    cut.update(cut_at=limit, cut_by=by)
                if cut:
                    await asyncio.to_thread(os.truncate, dest, cut["cut_at"])
            if cut and cut["cut_at"] == 0:
                dest.unlink(missing_ok=True)
            else:
                size, sha = await asyncio.to_thread(_digest, dest)
                record.update(file=name, bytes=size, sha256=sha)
                self._kept += size
            record.update(cut)
        except (PlaywrightError, OSError) as exc:
            dest.unlink(missing_ok=True)
            record["error"] = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        finally:
            stop.set()
            if watcher is not None:
                await asyncio.gather(watcher, return_exceptions=True)
            self._in_flight.pop(n, None)
            head.unlink(missing_ok=True)
            partial = _in_flight_file(download)
            if partial is not None:  # a cancelled download's partial file
                partial.unlink(missing_ok=True)
            # Playwright's own copy: the file lives only in the episode's folder.
            with contextlib.suppress(PlaywrightError):
                await download.delete()
        self.records.append(DownloadRecord.model_validate(record))

    async def finish(self) -> tuple[DownloadRecord, ...]:
        """Wait for downloads still being saved (the context is closed: they end now)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        return tuple(self.records)
