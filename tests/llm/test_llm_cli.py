"""`webtraj llm ...` commands."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.llm import LLMCache
from webtraj.llm.cache import CachedReply

runner = CliRunner()


def test_every_llm_command_has_an_example():
    for args in (["llm"], ["llm", "cache"], ["llm", "cache", "stats"], ["llm", "cache", "clear"],
                 ["llm", "check"], ["llm", "scripted-server"]):
        res = runner.invoke(app, [*args, "--help"])
        assert res.exit_code == 0, res.output
        assert "Example: webtraj llm" in res.output, args


def test_cache_stats_and_clear(tmp_path):
    path = tmp_path / "c.sqlite"
    with LLMCache(path) as c:
        c.put("a", "judge-model", CachedReply(text="x"))
        c.put("b", "agent-model", CachedReply(text="y"))
    res = runner.invoke(app, ["llm", "cache", "stats", "--cache", str(path), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["entries"] == 2 and data["models"] == {"agent-model": 1, "judge-model": 1}
    res = runner.invoke(app, ["llm", "cache", "stats", "--cache", str(path)])
    assert "judge-model" in res.output
    res = runner.invoke(app, ["llm", "cache", "clear", "--cache", str(path),
                              "--model", "judge-model", "--yes"])
    assert res.exit_code == 0 and "deleted 1 cached reply" in res.output
    res = runner.invoke(app, ["llm", "cache", "clear", "--cache", str(path)], input="n\n")
    assert res.exit_code == 1
    with LLMCache(path) as c:
        assert len(c) == 1


def test_cache_path_from_environment(tmp_path, monkeypatch):
    path = tmp_path / "env-cache.sqlite"
    monkeypatch.setenv("WEBTRAJ_LLM_CACHE", str(path))
    res = runner.invoke(app, ["llm", "cache", "stats", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["entries"] == 0


def test_check_against_the_scripted_server(server, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    server.add_rule("ready", contains="ready")
    res = runner.invoke(app, ["llm", "check", "--json", "--llm",
                              f"base_url={server.base_url},model=scripted,temperature=0"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["reply"] == "ready" and out["model"] == "scripted"


def test_check_reports_a_bad_spec(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("WEBTRAJ_LLM_BASE_URL", raising=False)
    res = runner.invoke(app, ["llm", "check", "--llm", "model=m"])
    assert res.exit_code == 2 and "no base_url" in res.output


def test_scripted_server_command_serves_rules_over_http(tmp_path):
    import re
    import subprocess
    import sys

    import httpx

    from webtraj.llm import LLMClient, ModelSpec

    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"contains": "capital", "reply": "Paris"}]))
    proc = subprocess.Popen([sys.executable, "-m", "webtraj.cli.app", "llm", "scripted-server",
                             "--rules", str(rules), "--echo", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        base_url = re.search(r"http://127\.0\.0\.1:\d+/v1", line).group()
        client = LLMClient(ModelSpec(base_url=base_url, model="m"))
        out = client.chat_many_sync(["the capital of France?", "hello"])
        assert [c.text for c in out] == ["Paris", "echo: hello"]
        stats = httpx.get(base_url.replace("/v1", "/_scripted/stats")).json()
        assert stats == {"requests": 2}
    finally:
        proc.terminate()
        proc.wait(10)


def test_scripted_server_command_rejects_bad_rules(tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"contains": "x", "reply": "y", "colour": "red"}]))
    res = runner.invoke(app, ["llm", "scripted-server", "--rules", str(rules)])
    assert res.exit_code == 2 and "colour" in res.output and "record 0" in res.output
