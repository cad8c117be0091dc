"""Agents, evaluators and constraint judges loaded from a user's module (by spec) or from an
installed distribution's entry points, with their options validated before anything runs."""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import sys
import textwrap

import pytest

from factories import make_trajectory
from webtraj.agents import check_agent_options, make_agent
from webtraj.evaluate.protocol import EvalEnv
from webtraj.evaluate.registry import ConfigError, create
from webtraj.evaluate.spec import parse_evaluator_spec
from webtraj.model import InputError, Observation
from webtraj.model.plugins import load_options_file, parse_option_pairs

USER_MODULE = '''
from pydantic import BaseModel, ConfigDict
from webtraj.agents import AgentDecision
from webtraj.model.action import Action, ActionKind
from webtraj.model.score import Score
from webtraj.evaluate.constraints.csr import ObservationCSR


class WaveAgent:
    """Clicks a fixed element, then stops."""

    name = "wave"

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        element: str = "1"
        clicks: int = 1

    def __init__(self, options: Options) -> None:
        self.options = options

    async def act(self, task, observation, history):
        if len(history) >= self.options.clicks:
            return AgentDecision(action=Action(kind=ActionKind.STOP, value="done"))
        return AgentDecision(action=Action(kind=ActionKind.CLICK,
                                           element_id=self.options.element))


def make_plain():
    return PlainAgent()


class PlainAgent:
    name = "plain"

    async def act(self, task, observation, history):
        return AgentDecision(action=Action(kind=ActionKind.STOP, value=""))


class NotAnAgent:
    name = "nope"

    def act(self, task, observation, history):  # not async
        return None


class StepCount:
    """Scores 1 when the trajectory has at least `min_steps` steps."""

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        min_steps: int = 1

    def __init__(self, options: Options, env) -> None:
        self.name = "step-count"
        self.options = options
        self.env = env

    async def evaluate(self, trajectory, artifacts):
        ok = len(trajectory.steps) >= self.options.min_steps
        return [Score(evaluator=self.name, value=float(ok))]


class UrlJudge:
    """Every constraint is met when its value is in the URL."""

    name = "url-judge"

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        lower: bool = True

    def __init__(self, options: Options) -> None:
        self.options = options

    async def judge(self, task, observations, trajectory, artifacts):
        from webtraj.model.score import ConstraintCheck
        out = []
        for obs in observations:
            low = self.options.lower
            url = obs.url.lower() if low else obs.url
            checks = [ConstraintCheck(name=c.name, ground_truth=str(c.value), agent_state=url,
                                      matching=(str(c.value).lower() if low else str(c.value))
                                      in url)
                      for c in task.constraints]
            out.append(ObservationCSR(checks))
        return out
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A module `wt_user_plugins` on sys.path, and a distribution publishing its objects
    under the webtraj entry-point groups (a real .dist-info that importlib.metadata reads)."""
    (tmp_path / "wt_user_plugins.py").write_text(USER_MODULE)
    dist = tmp_path / "wt_user_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: wt-user-plugins\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [webtraj.agents]
        wave = wt_user_plugins:WaveAgent
        [webtraj.evaluators]
        step-count = wt_user_plugins:StepCount
        [webtraj.judges]
        url = wt_user_plugins:UrlJudge
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield "wt_user_plugins"
    sys.modules.pop("wt_user_plugins", None)


def _act(agent, steps=()):
    task = make_trajectory().task
    return asyncio.run(agent.act(task, Observation(url="http://x/"), steps))


def test_agent_by_spec_with_typed_options(user_module):
    agent = make_agent(f"{user_module}:WaveAgent", options={"element": "7", "clicks": 2})
    decision = _act(agent)
    assert decision.action.element_id == "7"
    assert agent.options.clicks == 2


def test_agent_by_entry_point_and_factory(user_module):
    assert "wave" in importlib.metadata.entry_points(group="webtraj.agents").names
    assert make_agent("wave").name == "wave"
    assert make_agent(f"{user_module}:make_plain").name == "plain"


@pytest.mark.parametrize(("spec", "options", "field", "words"), [
    ("wt_user_plugins:WaveAgent", {"elemnt": "3"}, "option elemnt", "unknown option"),
    ("wt_user_plugins:WaveAgent", {"clicks": "many"}, "option clicks", "valid integer"),
    ("wt_user_plugins:PlainAgent", {"x": 1}, "option x", "takes no options"),
    ("wt_user_plugins:Missing", {}, "agent", "no attribute"),
    ("no_such_pkg.mod:Agent", {}, "agent", "cannot import"),
    ("no-such-agent", {}, "agent", "unknown agent"),
    ("llm", {"few_shot": "sometimes"}, "option few_shot", "valid boolean"),
    ("llm", {"tree_tokens": 10**23}, "option tree_tokens", "less than or equal"),
    ("mindact", {"ranker": "magic"}, "option ranker", "bm25"),
    ("heuristic", {"speed": 2}, "option speed", "takes no options"),
])
def test_bad_agent_or_option_is_a_clear_input_error(user_module, spec, options, field, words):
    with pytest.raises(InputError) as err:
        check_agent_options(spec, options)
    assert err.value.field == field
    assert words in str(err.value)


def test_agent_that_does_not_implement_the_protocol(user_module):
    from webtraj.agents.protocol import AgentError

    with pytest.raises(AgentError, match="async def act"):
        make_agent(f"{user_module}:NotAnAgent")


def test_builtin_options_are_typed():
    opts = check_agent_options("llm", {"history_window": 3, "few_shot": False})
    assert (opts.history_window, opts.few_shot) == (3, False)
    assert check_agent_options("mindact", {"top_k": 5}).top_k == 5


def test_option_pairs_and_files(tmp_path):
    assert parse_option_pairs(["top_k=5", "few_shot=false", "name=bm25", "x=[1,2]", "e="]) == \
        {"top_k": 5, "few_shot": False, "name": "bm25", "x": [1, 2], "e": ""}
    with pytest.raises(InputError, match="key=value"):
        parse_option_pairs(["oops"])
    (tmp_path / "o.yaml").write_text("top_k: 7\nranker: bm25\n")
    (tmp_path / "o.json").write_text('{"top_k": 9}')
    (tmp_path / "bad.json").write_text('{"top_k": ')
    (tmp_path / "list.yaml").write_text("- 1\n")
    assert load_options_file(tmp_path / "o.yaml") == {"top_k": 7, "ranker": "bm25"}
    assert load_options_file(tmp_path / "o.json") == {"top_k": 9}
    with pytest.raises(InputError) as err:
        load_options_file(tmp_path / "bad.json")
    assert err.value.file.endswith("bad.json") and "not valid JSON" in str(err.value)
    with pytest.raises(InputError, match="mapping"):
        load_options_file(tmp_path / "list.yaml")


def test_evaluator_by_spec_and_entry_point(user_module):
    traj = make_trajectory(n_steps=3)
    for name in (f"{user_module}:StepCount", "step-count"):
        ev = create({"evaluator": name, "min_steps": 3}, EvalEnv())
        assert asyncio.run(ev.evaluate(traj, None))[0].value == 1.0
        ev = create({"evaluator": name, "min_steps": 4}, EvalEnv())
        assert asyncio.run(ev.evaluate(traj, None))[0].value == 0.0
    with pytest.raises(ConfigError) as err:
        create({"evaluator": f"{user_module}:StepCount", "min_step": 3}, EvalEnv())
    assert "unknown option 'min_step'" in str(err.value)


def test_evaluator_arg_parsing_keeps_specs_whole():
    assert parse_evaluator_spec("constraints:judge=rule,steps=all") == \
        {"evaluator": "constraints", "judge": "rule", "steps": "all"}
    assert parse_evaluator_spec("my_pkg.mod:MyEval") == {"evaluator": "my_pkg.mod:MyEval"}
    assert parse_evaluator_spec("my_pkg.mod:MyEval:k=3,l=[1,2]") == \
        {"evaluator": "my_pkg.mod:MyEval", "k": 3, "l": [1, 2]}


def test_constraint_judge_plugin(user_module):
    from webtraj.model import Constraint

    traj = make_trajectory()
    traj = traj.model_copy(update={"final_observation": Observation(url="http://x/done")})
    task = traj.task.model_copy(update={"constraints": (Constraint(name="page", value="DONE"),)})
    traj = traj.model_copy(update={"task": task})
    for judge in (f"{user_module}:UrlJudge", "url"):
        ev = create({"evaluator": "constraints", "judge": judge}, EvalEnv())
        score = asyncio.run(ev.evaluate(traj, None))[0]
        assert score.value == 1.0 and score.evaluator == "constraints:url-judge"
        ev = create({"evaluator": "constraints", "judge": judge,
                     "judge_options": {"lower": False}}, EvalEnv())
        assert asyncio.run(ev.evaluate(traj, None))[0].value == 0.0
    with pytest.raises(ConfigError, match="unknown option 'lowr'"):
        create({"evaluator": "constraints", "judge": "url", "judge_options": {"lowr": 1}},
               EvalEnv())
    with pytest.raises(ConfigError, match="unknown judge"):
        create({"evaluator": "constraints", "judge": "no-such-judge"}, EvalEnv())


def test_entry_point_agent_and_evaluator_run_in_worker_processes(user_module, tmp_path):
    """Published under the entry-point groups only (no module spec on the command line):
    `webtraj run` with 2 worker processes rebuilds the agent there and scores with the
    plug-in evaluator, like a built-in."""
    import os
    import subprocess

    from webtraj.store import RunStore

    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")]), "RAY_AUTH_MODE": "disabled"}
    proc = subprocess.run(
        [sys.executable, "-m", "webtraj.cli.app", "run", "--suite", "booking", "--today",
         "2026-01-15", "--task-ids", "booking.hotels.01,booking.cars.01", "--agent", "wave",
         "--agent-option", "clicks=2", "--evaluator", "step-count", "--workers", "2",
         "--max-steps", "5", "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with RunStore.open(out) as store:
        trajs = list(store.iter_trajectories())
        scores = {t.trajectory_id: {s.evaluator for s in store.scores(t.trajectory_id)}
                  for t in trajs}
    assert len(trajs) == 2
    for t in trajs:
        assert t.agent == "wave" and t.error is None
        assert [s.action.kind for s in t.steps] == ["click", "click", "stop"]
        assert "step-count" in scores[t.trajectory_id]
