"""Per-step model usage: the llm agent, against the scripted model server, records each step's
calls and tokens on the step, they add up to the episode's total, and the trajectory page
shows them (mindact's per-step usage: tests/run/test_run_llm_agent.py)."""

from __future__ import annotations

import httpx

from factories import SANDBOX_TODAY
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.llm_rules import ScriptedReply
from webtraj.view.server import Viewer


def _reply(request) -> ScriptedReply:
    """Click the cookie button, then stop; each turn reports its own token counts."""
    text = request.last_user
    if "PREVIOUS ACTIONS:\nNone" in text:
        line = next(ln for ln in text.splitlines() if "Accept all cookies" in ln)
        element = line.strip().split("]")[0].lstrip("[")
        return ScriptedReply(content=f"A banner. {ACTION_PHRASE} ```click [{element}]```",
                             prompt_tokens=1234, completion_tokens=56)
    return ScriptedReply(content=f"Done. {ACTION_PHRASE} ```stop []```", prompt_tokens=2000,
                         completion_tokens=7)


def test_llm_agent_usage_per_step_on_the_page(tmp_path):
    with ScriptedLLMServer(default=_reply) as server:
        config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY,
                           task_ids=("booking.hotels.01",), max_steps=4,
                           llm=f"base_url={server.base_url},model=scripted")
        with execute_run(config, tmp_path / "runs" / "llm") as store:
            [t] = list(store.iter_trajectories())
    first, last = t.steps
    assert (first.usage.calls, first.usage.prompt_tokens, first.usage.completion_tokens) == (
        1, 1234, 56)
    assert (last.usage.calls, last.usage.prompt_tokens, last.usage.completion_tokens) == (
        1, 2000, 7)
    assert first.usage.models == ("scripted",) and first.usage.cost_usd is None
    total = t.usage.total
    assert total.prompt_tokens == 3234 and total.calls == 2
    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/trajectory", params={"r": "llm", "t": t.trajectory_id}).text
    assert "1 call · 1234 prompt + 56 completion tokens" in page
    assert "1 call · 2000 prompt + 7 completion tokens" in page
    assert "agent " in page and "settle " in page  # the step's timings
