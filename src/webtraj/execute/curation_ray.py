"""Curation chunks as Ray tasks. The driver reads each chunk (a worker on another machine
cannot see the run's disk) and ships it; the task answers with the chunk's wire form
(`chunk_wire`), which the driver decodes and writes in chunk order: the same bytes as one
process.

Memory is bounded by what is in flight: one chunk per CPU, plus the next chunk the driver
has already read so that a worker that finishes gets new work at once. A Ray instance
started here gets an object store sized to that (~64 KiB per trajectory each way, the
trajectories in and the records out, with Ray's spilling margin: it spills past 80%)
instead of Ray's default of 30% of the machine's memory, because every process mapping the
store keeps the pages it ever touched resident and the allocator cycles through all of it.
More than that in flight spills to disk (slower, same bytes); Ray's minimum is 75 MiB."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from webtraj.execute.chunk_wire import ChunkOut, decode_chunk
from webtraj.execute.curation import ChunkJob, process_raw_chunk
from webtraj.execute.ray_cluster import connect
from webtraj.store.reader import RawChunk, read_chunk

STORE_PER_TRAJECTORY = 64 * 1024
STORE_MIN = 80 * 2**20


def object_store_bytes(cpus: int, largest_chunk: int) -> int:
    return max(STORE_MIN, cpus * largest_chunk * STORE_PER_TRAJECTORY * 5 // 4)


def run_ray(root: str, chunks: Sequence[Sequence[tuple[str, str]]], job_json: str,
            take: Callable[[ChunkOut], None], on_chunk: Callable[[int, int], None] | None,
            num_cpus: int | None, address: str | None = None) -> None:
    """Curate `chunks` in Ray tasks, calling `take` with each result in chunk order."""
    largest = max((len(c) for c in chunks), default=1)
    ray = connect(address, num_cpus=num_cpus,
                  object_store_bytes=object_store_bytes(num_cpus or os.cpu_count() or 1,
                                                        largest))
    remote = ray.remote(num_cpus=1, max_retries=1)(process_raw_chunk)
    evaluators = ChunkJob.model_validate_json(job_json).settings.evaluators()
    cpus = max(1, int(ray.available_resources().get("CPU", 1) or 1))

    def read(i: int) -> RawChunk:
        return read_chunk(Path(root), [tid for tid, _ in chunks[i]], evaluators)

    submitted: dict[int, Any] = {}
    ready: dict[int, ChunkOut] = {}
    read_ahead: RawChunk | None = None  # chunk `next_submit`, read while the workers work
    next_submit = next_write = 0
    while next_write < len(chunks):
        # Results that finished early wait for their turn in `ready`, at most one per CPU.
        while (next_submit < len(chunks) and len(submitted) < cpus
               and len(ready) < cpus):
            raw = read_ahead or read(next_submit)
            read_ahead = None
            submitted[next_submit] = remote.remote(raw, chunks[next_submit], job_json)
            del raw  # Ray holds its own copy until the task is done
            next_submit += 1
        if read_ahead is None and next_submit < len(chunks):
            read_ahead = read(next_submit)
        refs = {ref: i for i, ref in submitted.items()}
        done, _ = ray.wait(list(refs), num_returns=1)
        for ref in done:
            i = refs[ref]
            ready[i] = decode_chunk(ray.get(ref))
            del submitted[i]
        while next_write in ready:
            take(ready.pop(next_write))
            next_write += 1
            if on_chunk:
                on_chunk(next_write, len(chunks))
