"""Model usage reaches the run through the agent protocol (`AgentDecision.usage`): an agent
with no `client` attribute that counts its own model calls has them recorded per step, per
trajectory and in run.json's agent totals."""

from __future__ import annotations

from collections.abc import Sequence

from one_page_site import serve_page
from webtraj.agents.protocol import AgentDecision
from webtraj.model import Action, ActionKind, Observation, Step, Task
from webtraj.model.usage import ModelUsage, Usage

PAGE = b"<!doctype html><html><head><title>Quiet</title></head><body><h1>Hi</h1></body></html>"


class OwnClientAgent:
    """Calls 'its model' (an endpoint webtraj does not know) twice per decision and says
    so on each decision; it keeps no `client` for webtraj to look into."""

    name = "own-client"

    async def act(self, task: Task, observation: Observation,
                  history: Sequence[Step]) -> AgentDecision:
        usage = Usage(models={"my-model": ModelUsage(calls=2, http_requests=2,
                                                     prompt_tokens=100 + len(history),
                                                     completion_tokens=5, latency_s=0.5)})
        kind = ActionKind.STOP if len(history) >= 1 else ActionKind.SCROLL
        action = Action(kind=kind, value="done" if kind is ActionKind.STOP else "down")
        return AgentDecision(action=action, reasoning="counted", usage=usage)


class SilentAgent(OwnClientAgent):
    """The same steps, reporting no usage: nothing is recorded, nothing fails."""

    name = "silent"

    async def act(self, task, observation, history) -> AgentDecision:
        decision = await super().act(task, observation, history)
        return decision.model_copy(update={"usage": None})


def _run(agent, tasks_file, out):
    from webtraj.execute.run import RunConfig, execute_run

    config = RunConfig(tasks_file=str(tasks_file), agent=agent.name, max_steps=4,
                       evaluate=False)
    with execute_run(config, out, agent=agent) as store:  # the agent runs in this process
        [traj] = list(store.iter_trajectories())
        return traj, store.info


def test_agent_usage_through_the_protocol(tmp_path):
    with serve_page(PAGE) as base:
        task = Task(task_id="quiet", intent="look", start_url=f"{base}/")
        tasks_file = tmp_path / "tasks.jsonl"
        tasks_file.write_bytes(task.to_json_bytes(indent=False) + b"\n")
        traj, info = _run(OwnClientAgent(), tasks_file, tmp_path / "run")
        quiet, quiet_info = _run(SilentAgent(), tasks_file, tmp_path / "silent")
    assert [s.usage.prompt_tokens for s in traj.steps] == [100, 101]
    assert all(s.usage.calls == 2 and s.usage.models == ("my-model",) for s in traj.steps)
    assert traj.usage.models["my-model"].calls == 4
    assert traj.usage.models["my-model"].prompt_tokens == 201
    assert info.usage["agent"]["total"]["calls"] == 4
    assert info.usage["agent"]["models"]["my-model"]["http_requests"] == 4
    assert "agent" not in quiet_info.usage
    assert quiet.usage is None and all(s.usage is None for s in quiet.steps)
    assert len(quiet.steps) == 2 and quiet.error is None
