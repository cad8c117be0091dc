"""Progress of a long command: a Rich bar on a terminal; plain lines when output is not a
terminal (CI logs, `| tee`), at a sensible rate: every item of a short job, else about every
5% or every 30 s, whichever comes first, and always the last."""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

LOG_EVERY_S = 30.0


class JobProgress(AbstractContextManager):
    def __init__(self, console: Console, label: str, *, force_lines: bool | None = None,
                 every_s: float = LOG_EVERY_S) -> None:
        self.console = console
        self.every_s = every_s
        self.label = label
        self.lines = (not console.is_terminal) if force_lines is None else force_lines
        self.total = 0
        self.done = 0
        self.stats = ""
        self._started = time.monotonic()
        self._last_line = 0.0
        self._last_done = 0
        self._bar: Progress | None = None
        self._task = None
        if not self.lines:
            self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
                                 TimeElapsedColumn(), console=console)

    def __enter__(self) -> JobProgress:
        self._started = self._last_line = time.monotonic()
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(et, ev, tb)

    def start(self, total: int) -> None:
        self.total = total
        if self._bar is not None:
            self._task = self._bar.add_task(self.label, total=total, stats="")
        else:
            self.console.print(f"{self.label}: {total} to do", highlight=False, markup=False)

    def advance(self, stats: str = "") -> None:
        self.done += 1
        self.stats = stats
        if self._bar is not None:
            self._bar.update(self._task, advance=1, stats=stats)
            return
        now = time.monotonic()
        step = max(1, self.total // 20)
        if (self.done >= self.total or self.done - self._last_done >= step
                or now - self._last_line >= self.every_s):
            self._last_line, self._last_done = now, self.done
            elapsed = int(now - self._started)
            self.console.print(f"{self.label} {self.done}/{self.total}"
                               f"{'  ' + stats if stats else ''}  "
                               f"{elapsed // 60}:{elapsed % 60:02d}", highlight=False,
                               markup=False)
