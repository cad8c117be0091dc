"""The Eval harness (the Multimodal-Mind2Web cookbook shape): keyword scorers, named scores,
skipped cases,
concurrency, grouping by metadata and storage as a run."""

from __future__ import annotations

import asyncio
import threading

import pytest

from webtraj.evaluate.harness import (
    Eval,
    NamedScore,
    action_correct,
    element_match,
    operation_match,
)
from webtraj.model.score import Score
from webtraj.store import RunStore


def cases():
    ops = [("CLICK", ""), ("TYPE", "JFK"), ("SELECT", "Pickup"), ("TYPE", "Paris")]
    return [{"input": {"task": f"t{i}", "i": i},
             "expected": {"op": op, "value": v, "element": str(i)},
             "metadata": {"website": "a" if i % 2 else "b", "op_type": op}}
            for i, (op, v) in enumerate(ops)]


def test_builtin_scorers():
    assert operation_match({"op": "TYPE"}, {"action": "TYPE"}) == 1.0
    assert operation_match({"op": "CLICK"}, {"op": "TYPE"}) == 0.0
    assert action_correct({"op": "CLICK", "value": "x"}, {"op": "CLICK", "value": ""}) == 1.0
    assert action_correct({"op": "TYPE", "value": " JFK "}, {"op": "TYPE", "value": "JFK"}) == 1
    assert action_correct({"op": "TYPE", "value": "LGA"}, {"op": "TYPE", "value": "JFK"}) == 0
    assert action_correct({"op": "SELECT", "value": "JFK"}, {"op": "TYPE", "value": "JFK"}) == 0
    assert element_match({"element": 5}, {"elements": ["5", "6"]}) == 1.0
    assert element_match({"element": None}, {"element": "5"}) == 0.0
    assert element_match({"element": "5"}, {"op": "CLICK"}) is None
    assert operation_match({"op": "CLICK"}, {}) is None


def test_eval_runs_scores_groups_and_stores(tmp_path):
    seen_kwargs: list[set[str]] = []
    active = {"now": 0, "max": 0}
    lock = threading.Lock()

    def task(inp):
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        import time

        time.sleep(0.05)
        with lock:
            active["now"] -= 1
        if inp["i"] == 3:
            raise RuntimeError("model down")
        return {"op": "TYPE" if inp["i"] else "CLICK", "value": "JFK", "element": str(inp["i"])}

    def spy(**kwargs):
        seen_kwargs.append(set(kwargs))
        return None  # skipped

    def named(output, metadata):
        return NamedScore(name="is_b", score=float(metadata["website"] == "b"))

    def as_score(output):
        return Score(evaluator="has_value", value=float(bool(output["value"])))

    def broken(output):
        raise KeyError("oops")

    ev = Eval("m2w-demo", cases, task,
              [operation_match, action_correct, element_match, spy, named, as_score, broken],
              concurrency=3, store=tmp_path / "run", group_by=["website"])
    result = ev.run()
    assert active["max"] >= 2  # cases ran concurrently
    assert seen_kwargs and seen_kwargs[0] == {"input", "output", "expected", "metadata"}
    s = result.summary
    assert s["operation_match"].mean == pytest.approx(2 / 3) and s["operation_match"].scored == 3
    assert s["action_correct"].mean == pytest.approx(2 / 3)
    assert s["spy"].mean is None and s["spy"].skipped == 4
    assert s["is_b"].mean == pytest.approx(2 / 3)
    assert s["broken"].scored == 0
    failed = next(c for c in result.cases if c.error)
    assert "model down" in failed.error and failed.scores["operation_match"] is None
    by_site = result.grouped("website")
    assert set(by_site) == {"a", "b"} and by_site["a"]["operation_match"].scored == 1
    by_op = result.grouped("op_type")
    assert by_op["TYPE"]["action_correct"].mean == pytest.approx(1.0)

    with RunStore.open(tmp_path / "run") as store:
        assert len(store) == 4
        assert store.info.results["summary"]["operation_match"]["scored"] == 3
        assert "website" in store.info.results["grouped"]
        rows = {r.trajectory_id: r for r in store.rows()}
        tid = next(t for t in rows if t.startswith("case-00001"))
        scores = {sc.evaluator: sc for sc in store.scores(tid)}
        assert scores["action_correct"].value == 1.0
        assert scores["spy"].value is None and "skipped" in scores["spy"].reason
        assert scores["broken"].error and "oops" in scores["broken"].reason
        traj = store.load_trajectory(tid)
        assert traj.task.metadata["expected"]["value"] == "JFK"


def test_async_task_and_out_of_range_scores():
    async def task(inp):
        await asyncio.sleep(0)
        return {"op": "CLICK"}

    def too_big(output):
        return 3

    result = asyncio.run(Eval("x", cases()[:1], task, [operation_match, too_big]).arun())
    case = result.cases[0]
    assert case.scores["operation_match"] == 1.0
    assert case.scores["too_big"] is None and "outside" in case.score_details["too_big"]["reason"]


def test_mind2web_steps_as_eval_cases(small_tasks, tmp_path):
    from webtraj.evaluate.mind2web import step_cases
    from webtraj.formats.mind2web.raw_json import task_steps
    from webtraj.formats.mind2web.steps import IssueLog

    steps = [s for t in small_tasks[:2] for s in task_steps(t, issues=IssueLog(), file="x",
                                                            start=0)]
    cases_ = list(step_cases(steps, max_items=20))
    first = cases_[0]
    assert "Interactive elements on the page:" in first["input"]["prompt"]
    assert first["input"]["prompt"].count("\n<") <= 20
    assert first["expected"]["elements"] == list(steps[0].positive_ids)

    def always_click(inp):
        return {"op": "CLICK", "value": ""}

    result = Eval("m2w-seed000", cases_, always_click,
                  [operation_match, action_correct, element_match]).run()
    clicks = sum(1 for s in steps if s.operation.op == "CLICK")
    assert result.summary["operation_match"].mean == pytest.approx(clicks / len(steps))
    assert result.summary["element_match"].mean == 0.0
    by_op = result.grouped("op_type")
    assert by_op["CLICK"]["action_correct"].mean == 1.0


def test_cookbook_flow_on_the_multimodal_mind2web_fixture(real_step_path, tmp_path):
    """The cookbook's flow end to end: load the steps, make cases, ask a model (the scripted
    server), score with registry evaluators and a plain function, store the run, rescore the
    stored run with `webtraj eval`: the same scores, and the record keeps what Eval wrote."""
    from typer.testing import CliRunner

    from webtraj.cli.app import app
    from webtraj.evaluate.mind2web import step_cases
    from webtraj.evaluate.registry import registry
    from webtraj.formats.mind2web import load_steps
    from webtraj.llm.client import LLMClient
    from webtraj.llm.spec import ModelSpec
    from webtraj.testing import ScriptedLLMServer

    steps = load_steps(real_step_path)
    with ScriptedLLMServer(default="Answer: A") as srv:
        client = LLMClient(ModelSpec(base_url=srv.base_url, model="scripted", timeout=30.0))

        async def predict(inp):
            reply = (await client.chat(inp["prompt"], use_cache=False)).text
            op = {"A": "CLICK", "B": "TYPE", "C": "SELECT"}.get(reply.split()[-1], "")
            return {"op": op, "value": ""}

        def mentions_the_site(input, metadata):
            return float(metadata["website"] in input["task"].lower() or 0.0)

        result = Eval("m2w-cookbook", list(step_cases(steps)), predict,
                      ["operation_match", {"evaluator": "action_correct"}, element_match,
                       mentions_the_site], store=tmp_path / "run", group_by=["website"]).run()
        assert srv.request_count == len(steps)
    assert "operation_match" in registry and "element_match" in registry
    assert result.summary["operation_match"].mean == 1.0  # the gold operation is CLICK
    assert result.summary["action_correct"].mean == 1.0
    assert result.summary["element_match"].mean == 0.0  # no element predicted
    assert result.summary["mentions_the_site"].scored == len(steps)
    assert set(result.grouped("website")) == {"thumbtack"}

    with RunStore.open(tmp_path / "run") as store:
        info = store.info
        assert info.schema_version == type(info)().schema_version and info.command == "Eval"
        assert info.results["kind"] == "eval" and info.results["group_by"] == ["website"]
        assert info.results["scorers"] == ["operation_match", "action_correct",
                                           "element_match", "mentions_the_site"]
        assert info.results["grouped"]["website"]["thumbtack"]["action_correct"]["mean"] == 1
        (tid,) = [r.trajectory_id for r in store.rows()]
        stored = {s.evaluator: s.value for s in store.scores(tid)}
    assert stored == {"operation_match": 1.0, "action_correct": 1.0, "element_match": 0.0,
                      "mentions_the_site": result.cases[0].scores["mentions_the_site"]}

    r = CliRunner().invoke(app, ["eval", "--run", str(tmp_path / "run"), "--evaluator",
                                 "action_correct", "--evaluator", "element_match"])
    assert r.exit_code == 0, r.output
    with RunStore.open(tmp_path / "run") as store:
        again = [(s.evaluator, s.value) for s in store.scores(tid)
                 if s.evaluator in ("action_correct", "element_match")]
        assert store.info.results["kind"] == "eval"
    assert sorted(again) == [("action_correct", 1.0), ("element_match", 0.0)]


def test_an_old_eval_run_record_keeps_its_kind_scorers_and_grouping():
    from webtraj.model.run import RunInfo

    info = RunInfo.model_validate({
        "schema_version": 1, "name": "m2w", "command": "Eval",
        "config": {"kind": "eval", "scorers": ["operation_match"], "group_by": ["website"],
                   "summary": {"operation_match": {"mean": 1.0, "scored": 1, "skipped": 0}},
                   "grouped": {}}})
    assert info.results == {"kind": "eval", "scorers": ["operation_match"],
                            "group_by": ["website"], "grouped": {},
                            "summary": {"operation_match": {"mean": 1.0, "scored": 1,
                                                            "skipped": 0}}}
