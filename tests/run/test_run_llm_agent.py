"""The llm agent against the scripted OpenAI-compatible server: valid actions finish the
task; garbage is recorded as step errors and the episode ends cleanly at max steps."""

from factories import SANDBOX_TODAY as TODAY
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing import ScriptedLLMServer


def _reply(request) -> str:
    # Click the cookie button on the first turn, then stop: enough to prove the loop.
    text = request.last_user
    if "PREVIOUS ACTIONS:\nNone" in text:
        line = next(ln for ln in text.splitlines() if "Accept all cookies" in ln)
        element = line.strip().split("]")[0].lstrip("[")
        return f"A cookie banner covers the page. {ACTION_PHRASE} ```click [{element}]```"
    return f"The banner is gone; nothing else to do here. {ACTION_PHRASE} ```stop []```"


def test_llm_agent_valid_actions(tmp_path):
    with ScriptedLLMServer(default=_reply) as server:
        config = RunConfig(suite="booking", agent="llm", today=TODAY,
                           task_ids=("booking.hotels.01", "booking.cars.01"), max_steps=5,
                           llm=f"base_url={server.base_url},model=scripted")
        with execute_run(config, tmp_path / "run") as store:
            trajs = list(store.iter_trajectories())
            usage = store.info.usage["llm"]["total"]
        assert server.request_count == 4
        # The agents' calls, made in worker processes, are totalled in run.json.
        assert usage["calls"] == 4 and usage["http_requests"] == 4
    assert len(trajs) == 2
    for t in trajs:
        assert t.termination == "stop"
        assert [s.action.kind for s in t.steps] == ["click", "stop"]
        assert t.steps[0].error is None
        assert "cookie banner" in t.steps[0].reasoning
        assert "Accept all cookies" not in t.steps[1].observation.axtree


def test_llm_agent_garbage_ends_at_max_steps(tmp_path):
    with ScriptedLLMServer(default="I like turtles.") as server:
        config = RunConfig(suite="booking", agent="llm", today=TODAY,
                           task_ids=("booking.rentals.01",), max_steps=3,
                           llm=f"base_url={server.base_url},model=scripted")
        with execute_run(config, tmp_path / "run") as store:
            [t] = list(store.iter_trajectories())
    assert t.termination == "max_steps" and t.error is None
    assert len(t.steps) == 3
    for s in t.steps:
        assert s.action is None
        assert "no action found" in s.error
        assert s.raw_output == "I like turtles."


def test_mindact_agent_ranks_and_runs_the_tournament(tmp_path):
    def reply(request) -> str:
        # Prefer the cookie button when it is among the options, else the first option.
        for line in request.last_user.splitlines():
            if "Accept all cookies" in line and line[:2].rstrip(".").isalpha():
                return f"Answer: {line[0]}. Action: CLICK Value:"
        return "Answer: B. Action: CLICK Value:"

    with ScriptedLLMServer(default=reply) as server:
        config = RunConfig(suite="booking", agent="mindact", today=TODAY,
                           task_ids=("booking.hotels.02",), max_steps=2,
                           llm=f"base_url={server.base_url},model=scripted")
        with execute_run(config, tmp_path / "run") as store:
            [t] = list(store.iter_trajectories())
        requests = server.request_count
    assert requests >= 2
    assert len(t.steps) == 2 and t.error is None
    # Each step's usage counts its tournament's calls; together, every call the server saw.
    assert all(s.usage is not None and s.usage.prompt_tokens > 0 for s in t.steps)
    assert sum(s.usage.calls for s in t.steps) == requests
    assert t.usage.total.calls == requests
    first = t.steps[0]
    assert first.action.kind == "click" and first.error is None
    assert f"[{first.action.element_id}] [button] [Accept all cookies]" in first.observation.axtree
    assert "multiple-choice rounds" in first.reasoning
