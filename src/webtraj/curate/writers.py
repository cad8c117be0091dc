"""The exported dataset: `train.jsonl` / `validation.jsonl` (chat messages only, so TRL's
SFT trainer and `datasets.load_dataset("json", ...)` take them as is), the same records with
their provenance in `train.parquet` / `validation.parquet`, relabeled tasks in `tasks.jsonl`
and `stats.json`.

A dataset of image records (`curate.vision`) also has `images/` (each distinct image once,
by content hash, which the JSONL names); its Parquet files carry the image bytes in an
`images` column typed for Hugging Face `datasets` (a list of Image, decoded on load), with
the messages as lists of parts, and smaller row groups (the bytes are large).

Byte-identical for the same input: records arrive in a fixed order, Parquet row groups
have a fixed size whatever the chunking, and nothing depends on time. Files are written
under temporary names and renamed when complete."""

from __future__ import annotations

import contextlib
import os
import shutil
from array import array
from collections.abc import Iterable, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from webtraj.curate.split import TRAIN, VALIDATION
from webtraj.curate.vision import IMAGES

SPLITS = (TRAIN, VALIDATION)
ROW_GROUP = 2048

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SCHEMA = pa.schema([
    ("messages", pa.list_(MESSAGE)),
    ("task_id", pa.string()),
    ("source_task_id", pa.string()),
    ("trajectory_id", pa.string()),
    ("step", pa.int32()),
    ("kind", pa.string()),
    ("relabeled", pa.bool_()),
    ("c_max", pa.float64()),
])
COLUMNS = tuple(SCHEMA.names)

PART = pa.struct([("type", pa.string()), ("text", pa.string())])
VISION_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.list_(PART))])
IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
_STRING = {"dtype": "string", "_type": "Value"}
# The features `datasets` reads from the file's metadata (so `images` decode to PIL images).
HF_FEATURES = {
    "messages": {"feature": {"role": _STRING, "content": {
        "feature": {"type": _STRING, "text": _STRING}, "_type": "List"}}, "_type": "List"},
    "images": {"feature": {"_type": "Image"}, "_type": "List"},
    "task_id": _STRING, "source_task_id": _STRING, "trajectory_id": _STRING,
    "step": {"dtype": "int32", "_type": "Value"}, "kind": _STRING,
    "relabeled": {"dtype": "bool", "_type": "Value"},
    "c_max": {"dtype": "float64", "_type": "Value"},
}
VISION_SCHEMA = pa.schema(
    [("messages", pa.list_(VISION_MESSAGE)), ("images", pa.list_(IMAGE)),
     *[(f.name, f.type) for f in SCHEMA if f.name != "messages"]],
    metadata={b"huggingface": orjson.dumps({"info": {"features": HF_FEATURES}})})
VISION_COLUMNS = tuple(VISION_SCHEMA.names)
VISION_ROW_GROUP = 64


def empty_columns(vision: bool = False) -> dict[str, list[Any]]:
    return {name: [] for name in (VISION_COLUMNS if vision else COLUMNS)}


def to_vision_batch(columns: dict[str, list[Any]]) -> pa.RecordBatch:
    """Image records as one Arrow batch (`images` holds each record's image bytes)."""
    return pa.RecordBatch.from_pydict(columns, schema=VISION_SCHEMA)


def to_batch(columns: dict[str, list[Any]]) -> pa.RecordBatch:
    """The rows as one Arrow batch, built from buffers (the same arrays `from_pydict` makes,
    without its per-value conversion, and without its import of pandas: some 50 MB in every
    worker process)."""
    msgs = columns["messages"]
    flat = [m for row in msgs for m in row]
    messages = pa.ListArray.from_arrays(
        _int32([0, *accumulate(len(row) for row in msgs)]),
        pa.StructArray.from_arrays([_strings([m["role"] for m in flat]),
                                    _strings([m["content"] for m in flat])], fields=list(MESSAGE)))
    arrays = {"messages": messages, "step": _int32(columns["step"]),
              "relabeled": _bools(columns["relabeled"]),
              "c_max": pa.Array.from_buffers(pa.float64(), len(columns["c_max"]),
                                             [None, pa.py_buffer(array("d", columns["c_max"]))])}
    return pa.RecordBatch.from_arrays(
        [arrays[name] if name in arrays else _strings(columns[name]) for name in COLUMNS],
        schema=SCHEMA)


def _int32(values: Sequence[int]) -> pa.Array:
    return pa.Array.from_buffers(pa.int32(), len(values), [None, pa.py_buffer(_i32(values))])


def _i32(values: Iterable[int]) -> array:
    out = array("i", values)
    assert out.itemsize == 4, "Arrow int32 buffers need a 4-byte C int"
    return out


def _strings(values: Sequence[str]) -> pa.Array:
    data = [v.encode() for v in values]
    offsets = _i32([0, *accumulate(len(d) for d in data)])
    return pa.Array.from_buffers(pa.string(), len(values),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def _bools(values: Sequence[bool]) -> pa.Array:
    bits = bytearray((len(values) + 7) // 8)
    for i, v in enumerate(values):
        if v:
            bits[i >> 3] |= 1 << (i & 7)
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


class DatasetWriter:
    def __init__(self, out: Path, *, vision: bool = False) -> None:
        self.out = out
        self.schema = VISION_SCHEMA if vision else SCHEMA
        self.row_group = VISION_ROW_GROUP if vision else ROW_GROUP
        out.mkdir(parents=True, exist_ok=True)
        # Image files go to a temporary folder, renamed to images/ when the dataset is.
        self._images_tmp = out / f".{IMAGES}.tmp" if vision else None
        self._image_names: set[str] = set()
        if self._images_tmp is not None:
            shutil.rmtree(self._images_tmp, ignore_errors=True)
            self._images_tmp.mkdir()
        self._final: list[tuple[Path, Path]] = []
        self._jsonl: dict[str, BinaryIO] = {}
        self._parquet: dict[str, pq.ParquetWriter] = {}
        self._buffers: dict[str, list[pa.RecordBatch]] = {s: [] for s in SPLITS}
        self._rows = dict.fromkeys(SPLITS, 0)
        for split in SPLITS:
            self._jsonl[split] = self._open(f"{split}.jsonl").open("wb")
            self._parquet[split] = pq.ParquetWriter(self._open(f"{split}.parquet"),
                                                    self.schema, compression="snappy")
        self._tasks = self._open("tasks.jsonl").open("wb")
        self._task_ids: set[str] = set()
        self.bytes_written = 0

    def _open(self, name: str) -> Path:
        final = self.out / name
        tmp = self.out / f".{name}.tmp"
        self._final.append((tmp, final))
        return tmp

    def add(self, split: str, jsonl: Sequence[bytes | memoryview], batch: pa.RecordBatch
            ) -> None:
        """JSONL lines (or blocks of them) and the same rows as Arrow."""
        self._jsonl[split].writelines(jsonl)
        self.bytes_written += sum(map(len, jsonl))
        if batch.num_rows:
            self._buffers[split].append(batch)
            self._rows[split] += batch.num_rows
        while self._rows[split] >= self.row_group:
            self._flush(split, self.row_group)

    def add_images(self, images: Iterable[tuple[str, bytes | memoryview]]) -> None:
        """Image files (`images/<hash>.<ext>`, bytes); each name is written once."""
        assert self._images_tmp is not None, "a text dataset has no images"
        for name, data in images:
            if name in self._image_names:
                continue
            self._image_names.add(name)
            (self._images_tmp / name.split("/", 1)[1]).write_bytes(data)
            self.bytes_written += len(data)

    def add_task(self, task_id: str, line: bytes) -> None:
        """Relabeled tasks, each id once (trials that met the same C' share one)."""
        if task_id not in self._task_ids:
            self._task_ids.add(task_id)
            self._tasks.write(line)

    def _flush(self, split: str, n: int) -> None:
        """Write the first n buffered rows as one row group. The rows are made contiguous
        first, so page boundaries never depend on how chunks happened to be cut."""
        table = pa.Table.from_batches(self._buffers[split], schema=self.schema)
        self._parquet[split].write_table(table.slice(0, n).combine_chunks(),
                                         row_group_size=self.row_group)
        rest = table.slice(n).combine_chunks()
        self._buffers[split] = rest.to_batches() if rest.num_rows else []
        self._rows[split] -= n

    def close(self, stats: dict) -> None:
        for split in SPLITS:
            left = self._rows[split]
            if left:
                self._flush(split, left)
            self._parquet[split].close()
            self._jsonl[split].close()
        self._tasks.close()
        stats_tmp = self._open("stats.json")
        stats_tmp.write_bytes(orjson.dumps(stats, option=orjson.OPT_INDENT_2) + b"\n")
        for tmp, final in self._final:
            os.replace(tmp, final)
        if self._images_tmp is not None:
            shutil.rmtree(self.out / IMAGES, ignore_errors=True)
            os.replace(self._images_tmp, self.out / IMAGES)

    def abort(self) -> None:
        for fh in (*self._jsonl.values(), self._tasks):
            fh.close()
        for w in self._parquet.values():
            with contextlib.suppress(Exception):  # cleaning up after a failure already raised
                w.close()
        for tmp, _ in self._final:
            tmp.unlink(missing_ok=True)
        if self._images_tmp is not None:
            shutil.rmtree(self._images_tmp, ignore_errors=True)
