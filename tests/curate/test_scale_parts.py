"""The parts curation takes at scale, each held to the slow form it replaced: prompts of long
trajectories (history written once per trajectory), Arrow batches built from buffers, and the
wire form chunk results travel in (pipes and Ray), and stored step checks read as rows."""

from __future__ import annotations

import orjson
import pyarrow as pa
import pytest

from curate.conftest import CONSTRAINTS, make_score, make_task, make_traj, matching_rows
from webtraj.agents.prompt_builder import PromptBuilder, PromptOptions
from webtraj.agents.prompting import PromptHistory, history_lines
from webtraj.curate.chat_records import history_by_id, render
from webtraj.curate.curve import curve_from_score
from webtraj.curate.instance import Instance
from webtraj.curate.pipeline import curate_trajectories
from webtraj.curate.settings import CurateSettings
from webtraj.curate.writers import SCHEMA, empty_columns, to_batch
from webtraj.execute.chunk_wire import ChunkOut, decode_chunk, encode_chunk
from webtraj.store.index import score_from_row, score_matches_from_row
from webtraj.store.reader import Loaded

NAMES = [c.name for c in CONSTRAINTS]


def _long_trajectory():
    """12 steps (two without a valid action), every constraint met only at the end, so every
    step is kept and the later prompts show only the last 8 of the previous actions."""
    task = make_task("hotels-042")
    traj = make_traj(task, 12, no_action=(3, 9))
    score = make_score(task, matching_rows(task, [[]] * 12 + [NAMES]))
    (curated,) = curate_trajectories([Loaded(traj.trajectory_id, traj, {score.evaluator: score})],
                                     CurateSettings(judge="rule"))
    inst = curated.outcome
    assert isinstance(inst, Instance) and inst.t_best == 12
    return traj, inst


def test_history_grown_step_by_step_is_the_history_of_each_prefix():
    traj, _ = _long_trajectory()
    for window in (0, 3, PromptOptions().history_window):
        history = PromptHistory()
        for t in range(len(traj.steps) + 1):
            assert history.lines(window) == history_lines(traj.steps[:t], window)
            if t < len(traj.steps):
                history.add(traj.steps[t])


def test_long_trajectory_prompts_equal_the_agents_prompt_for_each_prefix():
    traj, inst = _long_trajectory()
    records = render(traj, inst)
    assert len(records) == len(inst.steps) == 11  # 10 actions kept, then the added stop
    builder = PromptBuilder()
    for step, rec in zip(inst.steps, records, strict=True):
        obs = traj.steps[step.t].observation if step.t < 12 else traj.final_observation
        want = builder.turns(inst.task, obs, history_by_id(list(traj.steps[:step.t])))
        assert rec["messages"][:-1] == want
    last = records[-1]["messages"][-2]["content"]
    assert "(showing the last 8 of 12 actions)" in last
    assert "[error: unreadable output]" in last  # step 9 had no valid action


def _columns(n: int) -> dict:
    cols = empty_columns()
    for i in range(n):
        cols["messages"].append([{"role": "system", "content": "é" * i},
                                 {"role": "user", "content": f"ü {i}\n[1] [link]"},
                                 {"role": "assistant", "content": ""}][:1 + i % 3])
        for name in ("task_id", "source_task_id", "trajectory_id", "kind"):
            cols[name].append(f"{name}-{i}-☃")
        cols["step"].append(i * 7)
        cols["relabeled"].append(i % 3 == 0)
        cols["c_max"].append(i / 3)
    return cols


@pytest.mark.parametrize("n", [0, 1, 9, 17])
def test_batches_from_buffers_equal_arrows_own_conversion(n):
    cols = _columns(n)
    batch = to_batch(cols)
    batch.validate(full=True)
    assert batch.schema == SCHEMA
    assert batch.equals(pa.RecordBatch.from_pydict(cols, schema=SCHEMA))


def test_chunk_results_cross_the_wire_whole():
    out = ChunkOut(jsonl={"train": [b'{"messages": []}\n', b'{"messages": [1]}\n'],
                          "validation": []},
                   batches={"train": to_batch(_columns(5)), "validation": to_batch(_columns(0))},
                   tasks=[("t~relabel-abc", b'{"task_id": "t~relabel-abc"}\n')],
                   stats={"trajectories": 2}, steps_read=7,
                   decisions=[("a", "{\"trajectory_id\": \"a\"}"), ("b", "{}")])
    back = decode_chunk(encode_chunk(out))
    assert {s: b"".join(v) for s, v in back.jsonl.items()} == {
        s: b"".join(v) for s, v in out.jsonl.items()}
    assert (back.tasks, back.stats, back.steps_read, back.decisions) == (
        out.tasks, out.stats, out.steps_read, out.decisions)
    assert all(back.batches[s].equals(out.batches[s]) for s in out.batches)


def _row(score):
    """A Score as its score_sets columns (value, reason, error, steps, body)."""
    body = score.model_dump(mode="json", exclude_none=True, exclude={"step_values"})
    steps = None if score.step_values is None else orjson.dumps(score.step_values).decode()
    return (score.value, score.reason, int(score.error), steps, orjson.dumps(body).decode())


def test_step_checks_read_as_rows_give_the_curve_of_the_full_score():
    task = make_task("hotels-007")
    score = make_score(task, matching_rows(task, [[], [NAMES[0]], NAMES[:2], NAMES]))
    row = _row(score)
    full = score_from_row(score.evaluator, *row)
    light, rows = score_matches_from_row(score.evaluator, *row)
    assert light.step_checks is None and light.step_values == full.step_values
    assert curve_from_score(light, 4, rows) == curve_from_score(full, 4)
    curve = curve_from_score(light, 4, rows)
    assert curve.satisfied(2, tuple(NAMES)) == tuple(NAMES[:2])
    # The older form (per-step matches in details) reads the same way.
    old = orjson.loads(row[4])
    old["details"] = {"step_matching": [{c["name"]: c.get("matching") for c in r}
                                        for r in old.pop("step_checks")]}
    legacy = score_matches_from_row(score.evaluator, *row[:4], orjson.dumps(old).decode())
    assert curve_from_score(legacy[0], 4, legacy[1]) == curve_from_score(full, 4)


@pytest.mark.parametrize("checks", [[[{"name": "x", "matching": "perhaps"}]],
                                    [[{"name": "x", "surprise": 1}]], ["not a row"], 7])
def test_bad_step_checks_make_the_stored_score_unreadable(checks):
    body = orjson.dumps({"evaluator": "constraints:rule", "value": 0.5,
                         "step_checks": checks}).decode()
    with pytest.raises(ValueError):
        score_matches_from_row("constraints:rule", 0.5, None, 0, "[0.5]", body)
    with pytest.raises(ValueError):  # a body that is not an object
        score_matches_from_row("constraints:rule", 0.5, None, 0, None, "[1, 2]")
