"""No API key is ever written to disk (cache, run files) or to logs."""

from __future__ import annotations

import logging

import pytest

from webtraj.llm import LLMCallError, LLMClient, merge_run_usage
from webtraj.model import RunInfo
from webtraj.model.run import ModelInfo
from webtraj.store.run_store import RunStore
from webtraj.testing import Fault, ScriptedLLMServer

KEY = "sk-live-TOPSECRET-0123456789abcdef"


async def test_api_key_never_reaches_disk_or_logs(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)  # everything, httpx and httpcore included
    monkeypatch.setenv("WEBTRAJ_LLM_API_KEY", KEY)
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(tmp_path / "cache" / "llm.sqlite"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with ScriptedLLMServer(default='{"verdict": "success"}', api_key=KEY) as srv:
        spec_text = f"base_url={srv.base_url},model=judge,temperature=0"
        client = LLMClient.from_cli(spec_text)
        srv.inject(Fault.server_error(), times=1)
        srv.inject(Fault.http(401, message=f"Incorrect API key provided: {KEY}"), times=1,
                   contains="echo")
        async with client:
            results = await client.chat_many(["judge 1", "judge 2", "judge 1"])
            parsed = await client.structured("judge 3", dict)
            with pytest.raises(LLMCallError) as info:
                await client.chat("echo my key")
        assert all(r.text for r in results) and parsed.ok
        assert all(r.authorized for r in srv.requests[:4])  # the key was really sent
        messages = [str(info.value), repr(client.spec), str(client.spec.model_dump()),
                    str(results), str(parsed)]
        with RunStore.create(tmp_path / "run", RunInfo(
                name="secrets", command=f"webtraj evaluate --llm {spec_text}",
                model=ModelInfo.model_validate(client.spec.describe()))) as store:
            store.update_info(usage=merge_run_usage(store.info.usage, client.usage()))
        client.cache.close()

    assert "[REDACTED]" in str(info.value)
    for text in messages:
        assert KEY not in text
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert "retrying" in logged and "HTTP Request" in logged  # retries and httpx logged ...
    assert KEY not in logged  # ... without the key
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "llm.sqlite" for p in files) and any(p.name == "run.json"
                                                               for p in files)
    needle = KEY.encode()
    for path in files:
        assert needle not in path.read_bytes(), f"API key found in {path}"
