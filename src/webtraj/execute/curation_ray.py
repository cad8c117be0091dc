"""Curation chunks as Ray tasks, answered in the chunk's wire form (`chunk_wire`), which the
driver decodes and writes in chunk order: the same bytes as one process.

A task on the driver's own node reads its chunk from the run's folder, as a local worker
process does; a task on another node cannot see that disk, so the driver reads the chunk and
ships it through Ray's object store. Tasks are placed on nodes by the driver (one per CPU of
each node), so it knows which chunks to ship.

Memory is bounded by what is in flight: one chunk per CPU, plus, with other nodes, the next
chunk the driver has already read so that a worker that finishes gets new work at once. A Ray
instance started here gets an object store sized to that (~64 KiB per trajectory each way,
the trajectories in and the records out, with Ray's spilling margin: it spills past 80%)
instead of Ray's default of 30% of the machine's memory, because every process mapping the
store keeps the pages it ever touched resident and the allocator cycles through all of it.
More than that in flight spills to disk (slower, same bytes); Ray's minimum is 75 MiB."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webtraj.execute.chunk_wire import ChunkOut, decode_chunk, encode_chunk
from webtraj.execute.curation import ChunkJob, process_chunk, process_raw_chunk
from webtraj.execute.ray_cluster import connect
from webtraj.store.reader import RawChunk, read_chunk

STORE_PER_TRAJECTORY = 64 * 1024
STORE_MIN = 80 * 2**20


def object_store_bytes(cpus: int, largest_chunk: int) -> int:
    return max(STORE_MIN, cpus * largest_chunk * STORE_PER_TRAJECTORY * 5 // 4)


def process_chunk_encoded(root: str, items: Sequence[tuple[str, str]], job_json: str) -> bytes:
    """`process_chunk` on the driver's node (it reads the run), answered in the wire form."""
    return encode_chunk(process_chunk(root, items, job_json))


@dataclass
class RayCuration:
    """Where the chunks were curated: read by a task on the driver's node, or shipped."""

    read_on_node: int = 0
    shipped: int = 0


def _cpu_slots(ray: Any) -> dict[str, int]:
    """Whole CPUs per live node."""
    return {n["NodeID"]: int(n["Resources"].get("CPU", 0)) for n in ray.nodes()
            if n.get("Alive") and int(n["Resources"].get("CPU", 0)) >= 1}


def run_ray(root: str, chunks: Sequence[Sequence[tuple[str, str]]], job_json: str,
            take: Callable[[ChunkOut], None], on_chunk: Callable[[int, int], None] | None,
            num_cpus: int | None, address: str | None = None) -> RayCuration:
    """Curate `chunks` in Ray tasks, calling `take` with each result in chunk order."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    largest = max((len(c) for c in chunks), default=1)
    ray = connect(address, num_cpus=num_cpus,
                  object_store_bytes=object_store_bytes(num_cpus or os.cpu_count() or 1,
                                                        largest))
    here = ray.get_runtime_context().get_node_id()
    slots = _cpu_slots(ray) or {here: 1}
    busy = dict.fromkeys(slots, 0)
    reads = ray.remote(num_cpus=1, max_retries=1)(process_chunk_encoded)
    ships = ray.remote(num_cpus=1, max_retries=1)(process_raw_chunk)
    evaluators = ChunkJob.model_validate_json(job_json).settings.evaluators()
    cpus = sum(slots.values())
    elsewhere = any(node != here for node in slots)
    done_by = RayCuration()

    def read(i: int) -> RawChunk:
        return read_chunk(Path(root), [tid for tid, _ in chunks[i]], evaluators)

    def free_node() -> str | None:
        """The driver's node first (nothing to ship), then the least busy other node."""
        if busy.get(here, 0) < slots.get(here, 0):
            return here
        free = [n for n in slots if busy[n] < slots[n]]
        return min(free, key=lambda n: busy[n]) if free else None

    submitted: dict[int, tuple[Any, str]] = {}
    ready: dict[int, ChunkOut] = {}
    read_ahead: tuple[int, RawChunk] | None = None  # the next chunk, read for another node
    next_submit = next_write = 0
    while next_write < len(chunks):
        # Results that finished early wait for their turn in `ready`, at most one per CPU.
        while next_submit < len(chunks) and len(ready) < cpus and (node := free_node()):
            if node == here:
                ref = reads.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                    node, soft=False)).remote(root, chunks[next_submit], job_json)
                done_by.read_on_node += 1
            else:
                raw = read_ahead[1] if read_ahead else read(next_submit)
                # Soft: if that node is lost, Ray retries the task wherever it can run.
                ref = ships.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                    node, soft=True)).remote(raw, chunks[next_submit], job_json)
                del raw  # Ray holds its own copy until the task is done
                done_by.shipped += 1
            submitted[next_submit] = (ref, node)
            busy[node] += 1
            next_submit += 1
            read_ahead = None  # it was for the chunk just submitted
        if elsewhere and read_ahead is None and next_submit < len(chunks):
            read_ahead = (next_submit, read(next_submit))
        refs = {ref: i for i, (ref, _) in submitted.items()}
        done, _ = ray.wait(list(refs), num_returns=1)
        for ref in done:
            i = refs[ref]
            ready[i] = decode_chunk(ray.get(ref))
            busy[submitted.pop(i)[1]] -= 1
        while next_write in ready:
            take(ready.pop(next_write))
            next_write += 1
            if on_chunk:
                on_chunk(next_write, len(chunks))
    return done_by
