"""Persistent, content-addressed cache of chat replies (SQLite).

The key is a SHA-256 over the endpoint (scheme, host, port, path: never credentials), the
model, the messages with every image replaced by the hash of its bytes, the generation
parameters and the sample index, so n samples of one prompt are n entries and re-running an
evaluation makes no calls. The file is safe for many threads and processes at once (WAL,
a connection per thread and process, `INSERT OR IGNORE` so the first writer of a key wins).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import Field

from webtraj.llm.messages import Message
from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError

KEY_VERSION = 1
# What a damaged, locked or foreign cache file raises (the client's callers never import
# sqlite3: only the store and this cache speak SQL).
CacheError = sqlite3.Error
_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    created_at REAL NOT NULL,
    body BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS replies_model ON replies(model, created_at);
"""


def image_hash(url: str) -> str:
    """Data URLs are replaced by the hash of their payload; remote URLs stay as they are."""
    if url.startswith("data:"):
        return "sha256:" + hashlib.sha256(url.encode("utf-8")).hexdigest()
    return url


def _canonical_messages(messages: Sequence[Message]) -> list[Any]:
    out: list[Any] = []
    for m in messages:
        if isinstance(m.content, str):
            content: Any = m.content
        else:
            content = [
                {"text": p.text} if p.type == "text"
                else {"image": image_hash(p.image_url.url), "detail": p.image_url.detail}
                for p in m.content
            ]
        out.append([m.role, m.name, content])
    return out


def cache_key(endpoint: str, model: str, messages: Sequence[Message], params: dict[str, Any],
              sample: int) -> str:
    payload = {"v": KEY_VERSION, "endpoint": endpoint, "model": model,
               "messages": _canonical_messages(messages), "params": params, "sample": sample}
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class CachedReply(FrozenModel):
    text: str
    finish_reason: str | None = None
    response_model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    created_at: float = Field(default_factory=time.time)


class CacheStats(FrozenModel):
    path: str
    entries: int
    size_bytes: int
    models: dict[str, int]
    oldest: float | None = None
    newest: float | None = None


class LLMCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._conn()  # create the schema now, so a bad path fails early

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=60000")
            self._retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
            self._retry_locked(lambda: conn.executescript(_SCHEMA))
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot open the LLM cache: {exc}", file=self.path) from None
        self._local.conn = conn
        self._local.pid = os.getpid()
        with self._lock:
            self._conns.append(conn)
        return conn

    @staticmethod
    def _retry_locked(fn: Any, tries: int = 50) -> Any:
        for i in range(tries):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or i == tries - 1:
                    raise
                time.sleep(0.05)
        return None

    def get(self, key: str) -> CachedReply | None:
        row = self._conn().execute("SELECT body FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return CachedReply.model_validate(orjson.loads(row[0]))
        except (orjson.JSONDecodeError, ValueError):
            # Unreadable entry (e.g. written by a newer webtraj): drop it and call again.
            self._retry_locked(lambda: self._conn().execute(
                "DELETE FROM replies WHERE key = ?", (key,)))
            return None

    def put(self, key: str, model: str, reply: CachedReply) -> None:
        body = orjson.dumps(reply.model_dump(mode="json"))
        self._retry_locked(lambda: self._conn().execute(
            "INSERT OR IGNORE INTO replies(key, model, created_at, body) VALUES (?, ?, ?, ?)",
            (key, model, reply.created_at, body)))

    def __contains__(self, key: str) -> bool:
        return self._conn().execute(
            "SELECT 1 FROM replies WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return self._conn().execute("SELECT count(*) FROM replies").fetchone()[0]

    def stats(self) -> CacheStats:
        conn = self._conn()
        models = dict(conn.execute(
            "SELECT model, count(*) FROM replies GROUP BY model ORDER BY model").fetchall())
        oldest, newest = conn.execute(
            "SELECT min(created_at), max(created_at) FROM replies").fetchone()
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal"))
                   if p.exists())
        return CacheStats(path=str(self.path), entries=sum(models.values()), size_bytes=size,
                          models=models, oldest=oldest, newest=newest)

    def clear(self, *, model: str | None = None, older_than_s: float | None = None) -> int:
        """Delete entries (all, or one model's, or older ones); returns how many."""
        where, args = [], []
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if older_than_s is not None:
            where.append("created_at < ?")
            args.append(time.time() - older_than_s)
        sql = "DELETE FROM replies" + (" WHERE " + " AND ".join(where) if where else "")
        conn = self._conn()
        n = self._retry_locked(lambda: conn.execute(sql, args)).rowcount
        if not where:
            self._retry_locked(lambda: conn.execute("VACUUM"))
        return n

    def close(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            with contextlib.suppress(sqlite3.Error):
                c.close()
        self._local = threading.local()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
