"""Property tests of the curation definitions (the constraint-based evaluation paper, §2.2)."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from curate.conftest import CONSTRAINTS, make_score, make_task, make_traj, matching_rows
from webtraj.curate.chat_records import render
from webtraj.curate.instance import Drop, DropReason, Instance, RecordKind
from webtraj.curate.pipeline import curate_trajectories
from webtraj.curate.prefix import best_prefix
from webtraj.curate.relabel import format_date, rule_relabel
from webtraj.curate.settings import CurateSettings
from webtraj.model import ActionKind, parse_answer
from webtraj.store.reader import Loaded

NAMES = [c.name for c in CONSTRAINTS]
N = len(NAMES)

csr_values = st.lists(st.one_of(st.none(), st.integers(0, N).map(lambda k: k / N)),
                      min_size=1, max_size=15)


@given(csr_values)
def test_prefix_is_the_smallest_reaching_the_max(values):
    best = best_prefix(values)
    scored = [v for v in values if v is not None]
    if not scored or max(scored) == 0:
        assert best is None
        return
    assert best.c_max == max(scored)
    assert values[best.t_best] == best.c_max
    # No earlier observation reached C_max; unscored ones are counted, not guessed.
    assert all(v is None or v < best.c_max for v in values[:best.t_best])
    assert best.unscored_before_best == sum(v is None for v in values[:best.t_best])


# One observation's matches: a subset of the constraints met, or None (judge undecided).
obs_rows = st.one_of(st.none(), st.sets(st.sampled_from(NAMES)).map(sorted))


@st.composite
def trajectories(draw):
    n_steps = draw(st.integers(1, 8))
    met = draw(st.lists(obs_rows, min_size=n_steps + 1, max_size=n_steps + 1))
    stop_last = draw(st.booleans())
    no_action = draw(st.sets(st.integers(0, n_steps - 1), max_size=2))
    task = make_task()
    traj = make_traj(task, n_steps, stop_last=stop_last, no_action=tuple(no_action))
    return traj, matching_rows(task, met)


def _pipeline(traj, *scores, relabel="rule", seed=0):
    """The one curation pipeline on a trajectory with these stored scores (the first by the
    rule judge, a second by the llm judge)."""
    settings = CurateSettings(judge="rule", second_judge="llm" if len(scores) > 1 else None,
                              relabel=relabel, seed=seed)
    loaded = Loaded(traj.trajectory_id, traj, {
        ev: s for ev, s in zip(settings.evaluators(), scores, strict=False) if s is not None})
    (curated,) = curate_trajectories([loaded], settings)
    return curated.outcome


def _curate(traj, rows, relabel="rule", seed=0):
    return _pipeline(traj, make_score(traj.task, rows), relabel=relabel, seed=seed)


@settings(max_examples=300, deadline=None)
@given(trajectories(), st.sampled_from(["rule", "none"]), st.integers(0, 3))
def test_no_output_stop_has_csr_below_one_against_its_task(case, relabel, seed):
    traj, rows = case
    out = _curate(traj, rows, relabel, seed)
    if isinstance(out, Drop):
        return
    for step in out.steps:
        if step.action.kind is ActionKind.STOP:
            row = rows[step.t]
            assert all(row[c.name] is True for c in out.task.constraints), (step, row)
            assert step.t == out.t_best
    # Prefix steps are exactly the actions a_0..a_{t'-1} that had a valid, non-stop action.
    prefix = [s.t for s in out.steps if s.kind is RecordKind.STEP]
    assert prefix == [s.index for s in traj.steps[:out.t_best]
                      if s.action is not None and s.action.kind is not ActionKind.STOP]


@settings(max_examples=300, deadline=None)
@given(trajectories(), st.integers(0, 5))
def test_relabeled_task_names_exactly_the_satisfied_constraints(case, seed):
    traj, rows = case
    out = _curate(traj, rows, "rule", seed)
    if isinstance(out, Drop) or not out.relabeled:
        return
    met = {n for n, v in rows[out.t_best].items() if v}
    assert {c.name for c in out.task.constraints} == met == set(out.satisfied)
    assert 0 < len(met) < N
    assert out.task.task_id.startswith(traj.task.task_id + "~relabel")
    text = out.task.intent
    values = {"location": "Lisbon", "start_date": "March 05, 2026",
              "end_date": "March 09, 2026", "adults": "3 adults", "pool": "pool",
              "property_type": "cabin", "made_selection": "page"}
    for name, shown in values.items():
        assert (shown in text) == (name in met), (name, text)


@given(st.sets(st.sampled_from(NAMES), min_size=1), st.integers(0, 10**6))
def test_relabel_wording_depends_only_on_seed_task_and_constraints(met, seed):
    task = make_task()
    names = [n for n in NAMES if n in met]
    a = rule_relabel(task, names, seed=seed)
    b = rule_relabel(task, list(reversed(names)), seed=seed)
    assert a.task.intent == b.task.intent and a.stop_reasoning == b.stop_reasoning
    assert a.task.task_id == b.task.task_id


@settings(max_examples=100, deadline=None)
@given(trajectories(), st.integers(0, 3))
def test_records_are_the_same_bytes_for_the_same_input(case, seed):
    traj, rows = case
    first, second = _curate(traj, rows, "rule", seed), _curate(traj, rows, "rule", seed)
    if isinstance(first, Drop):
        assert first == second
        return
    a = b"".join(orjson.dumps(r) for r in render(traj, first))
    b = b"".join(orjson.dumps(r) for r in render(traj, second))
    assert a == b


def test_assistant_turn_parses_back_to_the_kept_action():
    task = make_task()
    traj = make_traj(task, 3)
    rows = matching_rows(task, [[], NAMES[:3], NAMES[:4], NAMES[:4]])
    inst = _curate(traj, rows)
    assert isinstance(inst, Instance) and inst.relabeled
    records = render(traj, inst)
    assert len(records) == len(inst.steps) == 3
    for rec, step in zip(records, inst.steps, strict=True):
        msgs = rec["messages"]
        assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant"]
        assert msgs[-2]["content"].startswith(f"TASK: {inst.task.intent}\n")
        assert parse_answer(msgs[-1]["content"]).action == step.action
    assert "URL: http://127.0.0.1:8001/p2" in records[-1]["messages"][-2]["content"]
    assert "1. click [10]" in records[-1]["messages"][-2]["content"]


def test_drop_reasons_for_bad_input():
    task = make_task()
    traj = make_traj(task, 2)
    n = len(traj.observations)
    assert _pipeline(traj, None).reason is DropReason.NO_SCORE
    assert _curate(traj, matching_rows(task, [[], [], []])).reason is DropReason.ZERO_CSR
    unscored = matching_rows(task, [None, None, None])
    assert _curate(traj, unscored).reason is DropReason.ALL_UNSCORED
    start = matching_rows(task, [NAMES[:2], NAMES[:1], []])
    assert _curate(traj, start).reason is DropReason.BEST_AT_START
    short = make_score(task, matching_rows(task, [[], NAMES]))
    assert _pipeline(traj, short).reason is DropReason.BAD_SCORE_SHAPE
    assert len(short.step_values) != n
    bare = make_traj(make_task(constraints=()), 2)
    assert _pipeline(bare, None).reason is DropReason.NO_CONSTRAINTS


def test_two_judges_must_agree_on_t_and_satisfied_set():
    task = make_task()
    traj = make_traj(task, 3)
    a = make_score(task, matching_rows(task, [[], NAMES[:2], NAMES[:3], NAMES[:3]]))
    same = make_score(task, matching_rows(
        task, [[], NAMES[:1], NAMES[:3], NAMES[:2]]), judge="llm")
    other_set = make_score(task, matching_rows(
        task, [[], NAMES[:2], NAMES[1:4], NAMES[:3]]), judge="llm")
    later = make_score(task, matching_rows(
        task, [[], NAMES[:2], NAMES[:2], NAMES[:3]]), judge="llm")
    assert isinstance(_pipeline(traj, a, same), Instance)
    assert _pipeline(traj, a, other_set).reason is DropReason.JUDGES_DISAGREE
    assert _pipeline(traj, a, later).reason is DropReason.JUDGES_DISAGREE
    assert _pipeline(traj, a, None).reason is DropReason.SECOND_JUDGE_MISSING


def test_full_success_keeps_own_stop_or_adds_one():
    task = make_task()
    rows = matching_rows(task, [[], NAMES[:3], NAMES, NAMES])
    own = _curate(make_traj(task, 3, stop_last=True), rows)
    assert [s.kind for s in own.steps] == [RecordKind.STEP, RecordKind.STEP,
                                           RecordKind.OWN_STOP]
    assert own.task == task and not own.relabeled
    went_on = _curate(make_traj(task, 3), rows)
    assert went_on.steps[-1].kind is RecordKind.ADDED_STOP


def test_partial_without_relabeling_has_no_stop():
    task = make_task()
    rows = matching_rows(task, [[], NAMES[:3], NAMES[:3]])
    inst = _curate(make_traj(task, 2, stop_last=True), rows, relabel="none")
    assert [s.kind for s in inst.steps] == [RecordKind.STEP]
    assert inst.invalid_stops == 1 and inst.task == task


def test_dates_are_written_month_dd_yyyy():
    assert format_date("2026-03-05") == "March 05, 2026"
    assert format_date("Mar 5 2026") == "March 05, 2026"
    assert format_date("next week") == "next week"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(1, 500))
def test_prompt_tree_shortcut_gives_what_trim_tree_gives(text, budget):
    from webtraj.agents.prompt_builder import fit_tree
    from webtraj.llm.tokens import trim_tree

    assert fit_tree(text, ["Lisbon"], budget) == trim_tree(text, budget, query=["Lisbon"]).text
