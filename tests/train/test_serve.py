"""serve-local: a real HTTP server doing transformers generation for the trained student;
the llm agent runs sandbox episodes in Chromium through it."""

from __future__ import annotations

import httpx
import pytest

from factories import SANDBOX_TODAY
from train_support import TASKS


@pytest.fixture(scope="module")
def server(trained, base_model):
    from webtraj.train.local_model import LocalModel
    from webtraj.train.serve import LocalServer

    _, result, _, _ = trained
    with LocalServer(LocalModel(str(base_model), result.adapter), name="student") as srv:
        yield srv


def _chat(srv, **body):
    body = {"model": "student", "messages": [{"role": "user", "content": "TASK: book"}],
            **body}
    return httpx.post(f"{srv.base_url}/chat/completions", json=body, timeout=120)


def test_serve_local_answers_like_an_openai_endpoint(server):
    models = httpx.get(f"{server.base_url}/models").json()
    assert [m["id"] for m in models["data"]] == ["student"]
    first = _chat(server, max_tokens=12)
    assert first.status_code == 200
    data = first.json()
    usage, choice = data["usage"], data["choices"][0]
    assert choice["message"]["role"] == "assistant"
    assert 1 <= usage["completion_tokens"] <= 12 and usage["prompt_tokens"] > 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert choice["finish_reason"] in ("stop", "length")
    # Greedy by default: the same request gives the same text.
    assert _chat(server, max_tokens=12).json()["choices"][0] == choice
    assert _chat(server, max_tokens=1).json()["usage"]["completion_tokens"] == 1
    text = choice["message"]["content"]
    if len(text) >= 4:
        cut = _chat(server, max_tokens=12, stop=[text[2:4]]).json()["choices"][0]
        assert cut["message"]["content"] == text[:text.index(text[2:4])]
        assert cut["finish_reason"] == "stop"


def test_serve_local_rejects_bad_requests_clearly(server):
    wrong = _chat(server, model="gpt-4o")
    assert wrong.status_code == 404 and "serves 'student'" in wrong.json()["error"]["message"]
    assert _chat(server, messages=[]).status_code == 400
    bad = _chat(server, max_tokens="many")
    assert bad.status_code == 400 and "max_tokens" in bad.json()["error"]["message"]
    image = _chat(server, messages=[{"role": "user", "content": [{"type": "image_url"}]}])
    assert image.status_code == 400 and "no images" in image.json()["error"]["message"]


def test_the_webtraj_llm_client_reads_text_and_token_counts(server):
    from webtraj.llm import LLMClient

    client = LLMClient.from_cli(f"base_url={server.base_url},model=student,max_tokens=8",
                                no_cache=True)
    comp = client.run_sync(lambda c: c.chat("TASK: rent a car", use_cache=False))
    assert comp.completion_tokens is not None and 1 <= comp.completion_tokens <= 8
    assert comp.prompt_tokens is not None and comp.prompt_tokens > 0


def test_llm_agent_runs_sandbox_episodes_on_the_served_student(server, tmp_path):
    from webtraj.execute.run import RunConfig, execute_run

    config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY, task_ids=TASKS,
                       max_steps=2, no_cache=True,
                       llm=f"base_url={server.base_url},model=student,max_tokens=40")
    with execute_run(config, tmp_path / "run") as store:
        trajs = list(store.iter_trajectories())
        usage = store.info.usage["llm"]["total"]
    assert sorted(t.task.task_id for t in trajs) == sorted(TASKS)
    assert usage["calls"] == 4
    for t in trajs:
        assert t.error is None and len(t.steps) == 2
        # Every step carries the student's own words, parsed into an action or a step error.
        assert all(s.raw_output is not None and (s.action or s.error) for s in t.steps)
