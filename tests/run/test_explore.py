"""`webtraj explore` end to end on the sandbox, without a model: a short exploration with real
Chromium, every kept label re-checked here by the oracle, the labeled tasks replayed to
SR 1, and the explorer deterministic under its seed."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from typer.testing import CliRunner

from factories import SANDBOX_TODAY
from webtraj.agents.explore.policy import PersonaExplorer
from webtraj.cli.app import app
from webtraj.evaluate.run_scoring import RunEnvironments
from webtraj.execute.explore import ExploreOptions, explore
from webtraj.generate.hindsight import observation_after
from webtraj.model.exploration import Exploration
from webtraj.model.task import Task
from webtraj.store import RunStore


def _replayed_decisions(traj) -> list:
    """The persona explorer's actions when shown the episode's pages again."""
    agent = PersonaExplorer(interval=3, patience=2)
    out = []
    for i, step in enumerate(traj.steps):
        d = asyncio.run(agent.act(traj.task, step.observation, traj.steps[:i]))
        out.append(d.action)
    return out


def test_explore_labels_verified_replayed_and_deterministic(tmp_path):
    out = tmp_path / "explore"
    opts = ExploreOptions(episodes=2, sites=("transit", "rentals"), workers=2, seed=1,
                          today=SANDBOX_TODAY, max_steps=14, embedder="ngram")
    report = explore(opts, out)
    assert report.episode_errors == 0 and report.kept >= 1, report
    tasks = [Task.model_validate_json(line)
             for line in (out / "tasks.jsonl").read_bytes().splitlines()]
    assert len(tasks) == report.kept
    assert report.distinct_intents == len({t.intent for t in tasks})
    with RunStore.open(out / "episodes") as episodes:
        oracle_env = RunEnvironments(episodes.info)
        sources = {r.trajectory_id: episodes.load_trajectory(r.trajectory_id)
                   for r in episodes.rows()}
    for traj in sources.values():
        ex = traj.exploration  # persona and seed, typed, with the episode
        assert ex is not None and ex == Exploration.of(traj.task) and ex.persona.name
        # Deterministic: the same seed and pages give the same actions.
        assert _replayed_decisions(traj) == [s.action for s in traj.steps]
    for task in tasks:
        meta = task.metadata["hindsight"]
        traj = sources[meta["trajectory"]]
        obs = observation_after(traj, meta["prefix"])
        check = oracle_env.for_trajectory(traj).oracle.check_url(task, obs.url)
        assert all(c.matching for c in check.checks), (task.intent, check)
        assert task.reference_actions and all(
            a.element_id is None for a in task.reference_actions)
    # The labeled run: each pair as an ordinary trajectory (the explored prefix, then a stop
    # that states the task), scored CSR 1 by the oracle like any run's.
    assert report.labeled_csr1 == report.kept
    with RunStore.open(out / "labeled") as labeled:
        rows = list(labeled.rows())
        assert len(rows) == len(tasks)
        for r in rows:
            traj = labeled.load_trajectory(r.trajectory_id)
            src = sources[traj.metadata["hindsight_of"]]
            k = traj.task.metadata["hindsight"]["prefix"]
            assert [s.action for s in traj.steps[:k]] == [s.action for s in src.steps[:k]]
            assert traj.steps[-1].action.kind == "stop" and traj.steps[-1].reasoning
            assert traj.exploration == src.exploration
            assert (labeled.trajectory_dir(r.trajectory_id) / "step-000.png").exists()
            scores = labeled.scores(r.trajectory_id, evaluator="constraints:oracle")
            assert scores and scores[0].value == 1.0
    # The tasks replay from their start URLs to SR 1 (`webtraj run --tasks ... --agent replay`).
    assert report.replayed == report.kept == report.replay_csr1
    saved = orjson.loads((out / "explore_report.json").read_bytes())
    assert saved["kept"] == report.kept


def test_explore_rejects_a_suite_without_an_oracle(tmp_path):
    res = CliRunner().invoke(app, ["explore", "--suite", "miniwob", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "oracle" in res.output
    res = CliRunner().invoke(app, ["explore", "--policy", "llm", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--llm" in res.output


@pytest.mark.slow
def test_explore_twice_with_one_seed_gives_the_same_tasks(tmp_path):
    """Two whole explorations (fresh browsers, fresh servers) with the same seed: the same
    episodes, so the same labeled tasks, actions and all."""
    def tasks_of(out):
        opts = ExploreOptions(episodes=3, sites=("hotels", "cars", "flights"), workers=2,
                              seed=4, today=SANDBOX_TODAY, max_steps=20, embedder="ngram",
                              replay=False)
        explore(opts, out)
        return [Task.model_validate_json(line).model_dump(exclude={"start_url"})
                for line in (out / "tasks.jsonl").read_bytes().splitlines()]

    first, second = tasks_of(tmp_path / "a"), tasks_of(tmp_path / "b")
    assert first and first == second
