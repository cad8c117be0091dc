"""Bulk parsing without the cyclic garbage collector.

Parsing a file or curating a chunk allocates many small containers (dicts, lists, models)
that refcounting alone frees, none of them in cycles. Each allocation burst still triggers
the cyclic collector, whose full passes walk every live object: at scale that was a quarter
of curation's CPU time. Pausing it for one bounded unit of work (a document, a chunk) and
resuming afterwards keeps memory bounded by that unit."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic collector for the block (if it was running), then resume it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
