"""Network traces: HAR 1.2 files and Playwright trace archives, read fast and checked.

Both give a list of HAR entries (`{"request": ..., "response": ...}`). Reading uses
orjson on a memory map, so the file's bytes are not copied onto the Python heap.
"""

from __future__ import annotations

import io
import mmap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from webtraj.model import InputError
from webtraj.runtime.no_gc import no_gc

# One HAR 1.2 entry as the trace holds it (`{"request": ..., "response": ...}`): the
# standard's JSON, read as is and checked where it is used.
HarEntry = dict[str, Any]


def load_trace(path: str | Path) -> list[dict[str, Any]]:
    """Entries of a HAR file, or of a Playwright trace (`.zip` or a `trace.network` file)."""
    path = Path(path)
    if path.suffix == ".zip" or path.is_dir() or path.name.endswith(".network"):
        return load_playwright_trace(path)
    return load_har(path)


def _read_json(path: Path) -> Any:
    try:
        with path.open("rb") as fh:
            size = path.stat().st_size
            if size == 0:
                raise InputError("empty file (no HAR data)", file=path)
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return orjson.loads(memoryview(mm))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid or truncated JSON: {exc}", file=path) from None


def parse_trace(data: bytes, name: str, *, file: str | Path | None = None
                ) -> list[dict[str, Any]]:
    """Entries of a trace already read (a HAR, a Playwright trace `.zip` or `trace.network`,
    by `name`): what a reader that opens files itself (`store.files`) parses."""
    file = file if file is not None else name
    if name.endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                raw = zf.read("trace.network")
        except KeyError:
            raise InputError("no 'trace.network' in the trace archive", file=file) from None
        except zipfile.BadZipFile as exc:
            raise InputError(f"cannot read trace: {exc}", file=file) from None
        return _network_entries(raw, file)
    if name.endswith(".network"):
        return _network_entries(data, file)
    if not data:
        raise InputError("empty file (no HAR data)", file=file)
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid or truncated JSON: {exc}", file=file) from None
    return _har_entries(obj, file)


def load_har(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    return _har_entries(_read_json(path), path)


def _har_entries(data: Any, path: str | Path) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get("log"), dict):
        raise InputError("not a HAR file: missing the 'log' object", file=path, field="log")
    entries = data["log"].get("entries")
    if not isinstance(entries, list):
        raise InputError("not a HAR file: missing the 'log.entries' list", file=path,
                         field="log.entries")
    if not entries:
        raise InputError("HAR file contains no entries", file=path, field="log.entries")
    check_entries(entries, file=path)
    return entries


def check_entries(entries: list[Any], *, file: str | Path | None = None, first: int = 0) -> None:
    """Each entry needs a request (url, method, headers) and a response (status); the parts
    evaluators read (request headers and body, response content and cookies) must have
    their HAR types, so every reader
    of a trace (the importer, `eval --run`, the direct evaluator) refuses the same files."""
    for i, e in enumerate(entries, first):
        if not isinstance(e, dict):
            raise InputError("entry is not an object", file=file, record=i)
        req, resp = e.get("request"), e.get("response")
        if not isinstance(req, dict):
            raise InputError("entry has no 'request' object", file=file, record=i,
                             field="request")
        if not isinstance(req.get("url"), str) or not req["url"]:
            raise InputError("missing request URL", file=file, record=i, field="request.url")
        url = req["url"]
        if "[" in url or "]" in url or not url.isascii():  # what urlsplit can refuse
            try:
                urlsplit(url)
            except ValueError as exc:
                raise InputError(f"not a valid URL ({exc})", file=file, record=i,
                                 field="request.url") from None
        if not isinstance(req.get("method"), str):
            raise InputError("missing request method", file=file, record=i,
                             field="request.method")
        _check_pairs(req.get("headers", []), file, i, "request.headers")
        _check_body(req.get("postData"), file, i, "request.postData")
        if not isinstance(resp, dict):
            raise InputError("entry has no 'response' object", file=file, record=i,
                             field="response")
        if not isinstance(resp.get("status"), int) or isinstance(resp["status"], bool):
            raise InputError("missing response status", file=file, record=i,
                             field="response.status")
        _check_pairs(resp.get("cookies", []), file, i, "response.cookies", value_optional=True)
        _check_body(resp.get("content"), file, i, "response.content")


def _check_pairs(items: Any, file: str | Path | None, record: int, field: str, *,
                 value_optional: bool = False) -> None:
    """HAR headers and cookies: a list of {"name": str, "value": str} objects."""
    if not isinstance(items, list):
        raise InputError(f"{field.rsplit('.', 1)[-1]} must be a list", file=file,
                         record=record, field=field)
    for item in items:  # the common case, cheaply (50,000 entries x 15 headers)
        if type(item) is not dict or type(item.get("name")) is not str or \
                type(item.get("value")) is not str:
            break
    else:
        return
    for k, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InputError("must be an object with a string 'name'", file=file,
                             record=record, field=f"{field}[{k}]")
        value = item.get("value")
        if not isinstance(value, str) and not (value_optional and value is None
                                               and "value" not in item):
            raise InputError("'value' must be a string", file=file, record=record,
                             field=f"{field}[{k}].value")


def _check_body(body: Any, file: str | Path | None, record: int, field: str) -> None:
    """postData / content: an object whose mimeType and text, when present, are strings."""
    if body is None:
        return
    if not isinstance(body, dict):
        raise InputError("must be an object", file=file, record=record, field=field)
    for key in ("mimeType", "text"):
        if body.get(key) is not None and not isinstance(body[key], str):
            raise InputError("must be a string", file=file, record=record,
                             field=f"{field}.{key}")


NOT_RECORDED = "_bodyNotRecorded"
"""The HAR `response.content` field that says why a response body an evaluator reads is
absent (its value is the reason; `comment` says it too): a check on it cannot be decided."""


def not_recorded(mime: str, reason: str, size: int = -1) -> dict[str, Any]:
    """The `response.content` of a wanted response body that could not be kept."""
    return {"mimeType": mime, "size": size, "text": "", NOT_RECORDED: reason,
            "comment": f"response body not recorded: {reason}"}


def body_not_recorded(entry: dict[str, Any]) -> str | None:
    """Why the response body of a HAR entry was wanted but not recorded; None otherwise."""
    content = (entry.get("response") or {}).get("content")
    reason = content.get(NOT_RECORDED) if isinstance(content, dict) else None
    return str(reason) if reason is not None else None


T = TypeVar("T")
_TRAILING = "unexpected content after document"
_WS = b" \t\r\n"
# Bytes that start a UTF-8 character (used to turn orjson's character offsets into bytes).
_STARTS = bytes(i for i in range(256) if i & 0xC0 != 0x80)


class _Scanner:
    """Walks a JSON document in a buffer one value at a time, without parsing the rest.

    orjson parses a window that starts at a value and reports where the value ended
    ("unexpected content after document"); the window grows until the value fits.
    """

    def __init__(self, buf: memoryview, file: Path) -> None:
        self.buf, self.file, self.n = buf, file, len(buf)
        self.window = 1 << 14

    def skip_ws(self, p: int) -> int:
        while p < self.n and self.buf[p] in _WS:
            p += 1
        return p

    def expect(self, p: int, char: bytes, what: str) -> int:
        p = self.skip_ws(p)
        if p >= self.n:
            raise InputError(f"truncated JSON: expected {what} at byte {p}", file=self.file)
        if self.buf[p] != char[0]:
            raise InputError(f"not a HAR file: expected {what} at byte {p}", file=self.file)
        return p + 1

    def peek(self, p: int) -> int:
        p = self.skip_ws(p)
        if p >= self.n:
            raise InputError("truncated JSON: the file ends too early", file=self.file)
        return p

    def value(self, p: int, record: int | None = None) -> tuple[Any, int]:
        """(value at p, byte offset just past it)."""
        p = self.skip_ws(p)
        size = self.window
        while True:
            end = min(self.n, p + size)
            while end < self.n and self.buf[end] & 0xC0 == 0x80:
                end += 1  # never cut a UTF-8 character in two
            try:
                value = orjson.loads(self.buf[p:end])
                stop = end
            except orjson.JSONDecodeError as exc:
                if exc.msg == _TRAILING:
                    stop = p + self._bytes(p, exc.pos)
                    value = orjson.loads(self.buf[p:stop])
                elif end < self.n:
                    size *= 2
                    continue
                else:
                    raise InputError(f"invalid or truncated JSON: {exc.msg}", file=self.file,
                                     record=record) from None
            self.window = max(1 << 12, min(1 << 20, 2 * (stop - p)))
            return value, stop

    def _bytes(self, p: int, chars: int) -> int:
        """Byte length of the first `chars` characters after p."""
        length = chars
        while True:
            got = len(bytes(self.buf[p:p + length]).translate(None, _STARTS))
            got = length - got  # characters = bytes - continuation bytes
            if got >= chars:
                while p + length < self.n and self.buf[p + length] & 0xC0 == 0x80:
                    length += 1
                return length
            length += chars - got


def scan_har(path: str | Path, summarize: Callable[[dict[str, Any], int, Callable[[], dict]], T],
             ) -> tuple[list[T], Callable[[], None]]:
    """Read a HAR entry by entry, keeping only `summarize(entry, index, reload)` of each.

    Memory stays near the file size (the file is memory-mapped; parsed entries are dropped
    after summarizing; `reload()` parses one entry again on demand). Returns the summaries
    and a `close` function that releases the file. Entries are checked as they are read.
    """
    path = Path(path)
    try:
        fh = path.open("rb")
        if path.stat().st_size == 0:
            fh.close()
            raise InputError("empty file (no HAR data)", file=path)
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=path) from None
    buf = memoryview(mm)

    def close() -> None:
        buf.release()
        mm.close()
        fh.close()

    try:
        out = _scan(_Scanner(buf, path), summarize)
    except BaseException:
        close()
        raise
    return out, close


def _scan(sc: _Scanner, summarize: Callable[..., T]) -> list[T]:
    out: list[T] = []
    p = sc.expect(0, b"{", "'{'")
    found_log = found_entries = False
    while True:  # top-level object
        p = sc.peek(p)
        if sc.buf[p] == ord("}"):
            p += 1
            break
        key, p = sc.value(p)
        p = sc.expect(p, b":", "':'")
        if key != "log":
            _, p = sc.value(p)
        else:
            found_log = True
            p = sc.expect(p, b"{", "the 'log' object")
            while True:  # log object
                p = sc.peek(p)
                if sc.buf[p] == ord("}"):
                    p += 1
                    break
                lkey, p = sc.value(p)
                p = sc.expect(p, b":", "':'")
                if lkey != "entries":
                    _, p = sc.value(p)
                else:
                    found_entries = True
                    p = _entries(sc, p, summarize, out)
                p = sc.peek(p)
                if sc.buf[p] == ord(","):
                    p += 1
        p = sc.peek(p)
        if sc.buf[p] == ord(","):
            p += 1
    if sc.skip_ws(p) != sc.n:
        raise InputError("unexpected data after the HAR object", file=sc.file)
    if not found_log:
        raise InputError("not a HAR file: missing the 'log' object", file=sc.file, field="log")
    if not found_entries:
        raise InputError("not a HAR file: missing the 'log.entries' list", file=sc.file,
                         field="log.entries")
    if not out:
        raise InputError("HAR file contains no entries", file=sc.file, field="log.entries")
    return out


def _entries(sc: _Scanner, p: int, summarize: Callable[..., T], out: list[T]) -> int:
    p = sc.expect(p, b"[", "the 'log.entries' list")
    i = 0
    with no_gc():
        while True:
            p = sc.peek(p)
            if sc.buf[p] == ord("]"):
                return p + 1
            start = sc.skip_ws(p)
            entry, p = sc.value(p, record=i)
            check_entries([entry], file=sc.file, first=i)
            out.append(summarize(entry, i, _reloader(sc.buf, start, p)))
            i += 1
            p = sc.peek(p)
            if sc.buf[p] == ord(","):
                p += 1
            elif sc.buf[p] != ord("]"):
                raise InputError("invalid JSON between entries", file=sc.file, record=i)


def _reloader(buf: memoryview, start: int, stop: int) -> Callable[[], dict]:
    return lambda: orjson.loads(buf[start:stop])


def load_playwright_trace(path: str | Path) -> list[dict[str, Any]]:
    """The `resource-snapshot` records of a Playwright trace: each is a HAR entry."""
    path = Path(path)
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                raw = zf.read("trace.network")
        else:
            raw = (path / "trace.network" if path.is_dir() else path).read_bytes()
    except KeyError:
        raise InputError("no 'trace.network' in the trace archive", file=path) from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"cannot read trace: {exc}", file=path) from None
    return _network_entries(raw, path)


def _network_entries(raw: bytes, path: str | Path) -> list[dict[str, Any]]:
    entries = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON line: {exc}", file=path, record=f"line {n}") from None
        if isinstance(item, dict) and item.get("type") == "resource-snapshot":
            entries.append(item.get("snapshot"))
    if not entries:
        raise InputError("trace contains no network events", file=path)
    check_entries(entries, file=path)
    return entries
