"""Curation chunks on the local machine's cores: worker processes that each read, parse and
curate whole chunks, so the driver only writes (one core reading and validating 150k
trajectories is most of the time of `webtraj curate`).

Chunk i goes to worker i mod n and each worker answers in the order it was asked, so results
are taken in chunk order: the same bytes as one process. Requests and results cross the pipe
as bytes (the job as JSON once, then chunk numbers; results in `chunk_wire`'s form), never
pickled objects; at most `window` chunks per worker are in flight."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import struct
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection

import orjson

from webtraj.execute.chunk_wire import decode_chunk, encode_chunk
from webtraj.runtime.children import die_with_parent

_LEN = struct.Struct("<Q")


def run_pool(root: str, chunks: Sequence[Sequence[tuple[str, str]]], job_json: str,
             workers: int, take: Callable, on_chunk: Callable[[int, int], None] | None,
             window: int = 2) -> None:
    """Curate `chunks` on `workers` processes, calling `take` with each result in order."""
    ctx = mp.get_context("spawn")
    procs: list[tuple[mp.process.BaseProcess, Connection]] = []
    try:
        for _ in range(min(workers, len(chunks))):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(os.getpid(), child), daemon=True)
            proc.start()
            child.close()
            procs.append((proc, parent))
        n = len(procs)
        # The job once (each worker reads it before anything else), then chunk numbers: a
        # request always fits the pipe, so the driver never waits on a worker that is itself
        # waiting to hand back a large result.
        job = orjson.dumps({"root": root, "job": job_json, "chunks": chunks})
        for _, conn in procs:
            conn.send_bytes(job)

        def ask(i: int) -> None:
            procs[i % n][1].send_bytes(_LEN.pack(i))

        asked = 0
        for i in range(len(chunks)):
            while asked < len(chunks) and asked < i + n * window:
                ask(asked)
                asked += 1
            take(_answer(procs[i % n]))
            if on_chunk:
                on_chunk(i + 1, len(chunks))
    finally:
        for _, conn in procs:
            with contextlib.suppress(OSError):
                conn.send_bytes(b"")
        for proc, conn in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
            conn.close()


def _answer(worker: tuple[mp.process.BaseProcess, Connection]):
    proc, conn = worker
    try:
        data = conn.recv_bytes()
    except (EOFError, OSError):
        proc.join(timeout=5)
        raise RuntimeError(f"a curation worker died (exit code {proc.exitcode})") from None
    if data[:1] == b"E":
        raise RuntimeError(f"a curation worker failed:\n{data[1:].decode(errors='replace')}")
    return decode_chunk(memoryview(data)[1:])


def _requests(conn: Connection) -> Iterator[int]:
    while data := conn.recv_bytes():
        yield _LEN.unpack(data)[0]


def _worker_main(parent_pid: int, conn: Connection) -> None:
    die_with_parent(parent_pid)
    from webtraj.execute.curation import process_chunk

    if not (data := conn.recv_bytes()):
        return  # the driver stopped before sending the job
    job = orjson.loads(data)
    for i in _requests(conn):
        try:
            items = [tuple(x) for x in job["chunks"][i]]
            out = process_chunk(job["root"], items, job["job"])
            conn.send_bytes(encode_chunk(out, prefix=b"O"))
        except Exception:  # noqa: BLE001 - sent to the driver, which stops the job with it
            conn.send_bytes(b"E" + traceback.format_exc().encode())
