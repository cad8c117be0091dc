"""`EvalEnv` says what it holds: typed fields, no `Any` and no loose dict, and one parsed
network trace shared by the evaluators that read it."""

from __future__ import annotations

import typing

import orjson
import pytest

from webtraj.evaluate.protocol import EvalEnv, TraceCache
from webtraj.model import InputError


def _loose(hint: object) -> bool:
    if hint is typing.Any:
        return True
    origin = typing.get_origin(hint)
    if origin is dict and typing.Any in typing.get_args(hint):
        return True
    return any(_loose(a) for a in typing.get_args(hint))


def test_eval_env_fields_are_typed():
    from webtraj.llm import LLMClient
    from webtraj.sites.oracle import Oracle

    hints = typing.get_type_hints(EvalEnv, localns={"LLMClient": LLMClient, "Oracle": Oracle})
    assert set(hints) == {"site_urls", "served_sites", "oracle", "llm", "traces"}
    assert [name for name, hint in hints.items() if _loose(hint)] == []
    assert hints["llm"] == LLMClient | None and hints["oracle"] == Oracle | None


def _har(path, urls):
    path.write_bytes(orjson.dumps({"log": {"version": "1.2", "entries": [
        {"request": {"method": "GET", "url": u}, "response": {"status": 200}} for u in urls]}}))
    return path


def test_trace_cache_reads_each_trace_once_and_keeps_one(tmp_path):
    a = _har(tmp_path / "a.har", ["http://127.0.0.1/a"])
    b = _har(tmp_path / "b.har", ["http://127.0.0.1/b1", "http://127.0.0.1/b2"])
    cache = TraceCache()
    first = cache.entries(tmp_path, a.name)
    assert [e["request"]["url"] for e in first] == ["http://127.0.0.1/a"]
    a.write_bytes(b"not read again")  # the second evaluator of this trajectory gets the same
    assert cache.entries(tmp_path / ".", "a.har") is first
    assert len(cache.entries(tmp_path, b.name)) == 2
    # Another trajectory's trace replaces it: `a` is read again (and is now broken).
    with pytest.raises(InputError):
        cache.entries(tmp_path, a.name)
    assert len(cache.entries(tmp_path, b.name)) == 2  # a failed read keeps nothing stale
