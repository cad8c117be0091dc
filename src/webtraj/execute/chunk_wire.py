"""A curated chunk's result, and its form on the wire: one bytes message (a JSON header, the
JSONL already rendered, Parquet rows as Arrow IPC streams), never a pickled object. Worker
processes send it through a pipe and Ray tasks return it, so a result reaches the driver as
plain bytes that it decodes and can drop as soon as they are written."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa

_LEN = struct.Struct("<Q")


@dataclass
class ChunkOut:
    # Per split, the JSONL lines (each ending in a newline) or, decoded, one block of them.
    jsonl: dict[str, list[bytes | memoryview]] = field(default_factory=dict)
    # Parquet rows per split as Arrow batches: built in the worker, moved without pickling.
    batches: dict[str, Any] = field(default_factory=dict)
    tasks: list[tuple[str, bytes]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    steps_read: int = 0
    # (trajectory id, its CurationDecision as stored JSON) per trajectory of the chunk.
    decisions: list[tuple[str, str]] = field(default_factory=list)
    # Image files of the chunk's records (dataset path, bytes), each name once.
    images: list[tuple[str, bytes | memoryview]] = field(default_factory=list)


def encode_chunk(out: ChunkOut, prefix: bytes = b"") -> bytes:
    """A ChunkOut as one message (after `prefix`): header length, JSON header, then the
    blobs it lists. Each line and Arrow buffer is copied once, into the message."""
    blobs: list[bytes | pa.Buffer] = []
    sizes: dict[str, dict[str, int]] = {"jsonl": {}, "batches": {}}
    for split, lines in out.jsonl.items():
        sizes["jsonl"][split] = sum(map(len, lines))
        blobs.extend(lines)
    for split, batch in out.batches.items():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        data = sink.getvalue()
        sizes["batches"][split] = data.size
        blobs.append(data)
    images = [[name, len(data)] for name, data in out.images]
    blobs.extend(data for _, data in out.images)
    header = orjson.dumps({"sizes": sizes, "stats": out.stats, "steps_read": out.steps_read,
                           "images": images,
                           "tasks": [[tid, line.decode()] for tid, line in out.tasks],
                           "decisions": out.decisions})
    return b"".join([prefix, _LEN.pack(len(header)), header, *blobs])


def decode_chunk(data: bytes | memoryview) -> ChunkOut:
    """The ChunkOut of a message. Its JSONL stays a view into `data` (written at once);
    the Arrow batches get their own bytes."""
    view = memoryview(data)
    (n,) = _LEN.unpack_from(view)
    header = orjson.loads(view[_LEN.size:_LEN.size + n])
    pos = _LEN.size + n
    out = ChunkOut(stats=header["stats"], steps_read=header["steps_read"],
                   tasks=[(tid, line.encode()) for tid, line in header["tasks"]],
                   decisions=[(tid, body) for tid, body in header["decisions"]])
    for split, size in header["sizes"]["jsonl"].items():
        out.jsonl[split] = [view[pos:pos + size]]
        pos += size
    for split, size in header["sizes"]["batches"].items():
        # The batch gets its own copy of its bytes: a view would keep the whole message
        # (JSONL included) alive while the writer buffers rows for a row group, which for
        # the small validation split spans dozens of chunks.
        reader = pa.ipc.open_stream(pa.py_buffer(bytes(view[pos:pos + size])))
        out.batches[split] = reader.read_next_batch()
        pos += size
    for name, size in header.get("images", []):
        out.images.append((name, view[pos:pos + size]))
        pos += size
    return out
