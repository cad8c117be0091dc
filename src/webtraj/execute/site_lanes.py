"""Tasks that change their sites, one at a time per site: a task holds every site it changes
while it runs (its reset commands included), so two tasks sharing a site never overlap, and
tasks on different sites run side by side, up to `parallel` at once. Tasks start in the order
given whenever their sites are free (a later task on a free site does not wait behind an
earlier one on a busy site).

Each task runs in a lane thread; what it hands back (`post(fn)`) runs on the calling thread,
one call at a time, so the run store (SQLite) is only ever touched from the thread that
opened it."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
Post = Callable[[Callable[[], None]], None]


def run_per_site(items: Sequence[T], sites: Callable[[T], tuple[str, ...]],
                 run_one: Callable[[T, Post], None], parallel: int) -> None:
    """Call `run_one(item, post)` for every item, never two items sharing a site at once;
    the first exception (of a lane or of a posted call) is raised once every lane ended."""
    pending = list(items)
    if not pending:
        return
    busy: set[str] = set()
    cond = threading.Condition()
    failures: list[BaseException] = []
    calls: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()

    def take() -> T | None:
        with cond:
            while pending and not failures:
                for i, item in enumerate(pending):
                    if busy.isdisjoint(sites(item)):
                        busy.update(sites(item))
                        return pending.pop(i)
                cond.wait()
            return None

    def lane() -> None:
        while (item := take()) is not None:
            try:
                run_one(item, calls.put)
            except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
                with cond:
                    failures.append(exc)
            finally:
                with cond:
                    busy.difference_update(sites(item))
                    cond.notify_all()

    threads = [threading.Thread(target=lane, name=f"site-lane-{i}", daemon=True)
               for i in range(max(1, min(parallel, len(pending))))]
    for t in threads:
        t.start()

    def join() -> None:
        for t in threads:
            t.join()
        calls.put(None)

    threading.Thread(target=join, name="site-lanes-join", daemon=True).start()
    while (call := calls.get()) is not None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - the lanes stop taking tasks, then raise
            with cond:
                failures.append(exc)
                cond.notify_all()
    if failures:
        raise failures[0]
