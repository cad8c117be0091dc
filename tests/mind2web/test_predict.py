"""Predictors: the MindAct tournament and the direct baseline through the LLM layer against
the scripted OpenAI-compatible server, answer parsing, file and callable predictors."""

from __future__ import annotations

import asyncio
import re

import pytest

from webtraj.agents.mindact import (
    CallablePredictor,
    DirectPredictor,
    FilePredictor,
    MultiChoicePredictor,
    llm_ask,
    parse_choice,
    parse_direct,
    predict_all,
    run_tournament,
    top_candidates,
)
from webtraj.evaluate.mind2web.step_metrics import score_steps
from webtraj.formats.mind2web.predictions import StepPrediction, write_predictions
from webtraj.formats.mind2web.raw_json import task_steps
from webtraj.formats.mind2web.steps import IssueLog
from webtraj.llm import LLMClient, ModelSpec
from webtraj.testing import ScriptedLLMServer

_OPTION = re.compile(r"^([B-F])\. (.*)$", re.MULTILINE)


def oracle_reply(prompt: str) -> str:
    """Answers like a perfect model on synthetic pages: it recognises the target element."""
    city = re.search(r"deals in (\w+) for", prompt)
    for letter, text in _OPTION.findall(prompt):
        if text.startswith("<button") and "submit> Search" in text:
            return f"Answer: {letter}. Action: CLICK Value:"
        if "location enter" in text and text.startswith("<input"):
            return f"Answer: {letter}. Action: TYPE Value: {city.group(1) if city else ''}"
        m = re.match(r"<select id=\d+ [^>]*option> (.+?) </select>", text)
        if m:
            return f"Answer: {letter}. Action: SELECT Value: {m.group(1)}"
    return "Answer: A."


@pytest.fixture()
def steps(small_tasks):
    issues = IssueLog()
    return [s for t in small_tasks for s in task_steps(t, issues=issues, file="x", start=0)]


@pytest.fixture()
def server():
    with ScriptedLLMServer(default=lambda r: oracle_reply(r.last_user)) as srv:
        yield srv


def _client(server: ScriptedLLMServer) -> LLMClient:
    return LLMClient(ModelSpec(base_url=server.base_url, model="scripted", timeout=10.0))


@pytest.mark.parametrize(("text", "letter", "op", "value"), [
    ("Answer: C. Action: SELECT Value: Pickup", "C", "SELECT", "Pickup"),
    ("C.\nAction: TYPE\nValue: New York\nmore", "C", "TYPE", "New York"),
    ("Answer: B.\nAction: click", "B", "CLICK", ""),
    ("I think answer: (D) Action: CLICK", "D", "CLICK", ""),
    ("no idea", "A", "", ""),
])
def test_parse_choice(text, letter, op, value):
    a = parse_choice(text)
    assert (a.letter, a.op, a.value) == (letter, op, value)


def test_parse_direct():
    a = parse_direct("Element: <button id=3 submit> Go\nAction: CLICK\nValue:")
    assert (a.element_number, a.op, a.value) == (3, "CLICK", "")
    assert parse_direct("Element: none").element_number is None


def test_tournament_with_the_llm_layer_finds_targets(steps, server):
    client = _client(server)
    predictor = MultiChoicePredictor(llm_ask(client), seed=1)

    async def go():
        try:
            return await predict_all(steps, predictor, concurrency=4)
        finally:
            await client.aclose()

    preds = asyncio.run(go())
    assert [p.key for p in preds] == [s.key for s in steps]
    m = score_steps(steps, preds)
    answerable = [s for s in steps if any(c.rank < 50 for c in s.pos_candidates)]
    assert m.micro.step_sr == pytest.approx(len(answerable) / len(steps))
    assert server.request_count >= len(answerable)
    # The prompt shows the options and the answer format.
    first = server.requests[0].last_user
    assert "A. None of the above" in first and "Answer: C. Action: SELECT" in first


def test_tournament_groups_shuffle_and_none(steps):
    step = next(s for s in steps if len(top_candidates(s)) == 50)
    asked: list[str] = []

    async def reject(prompt: str) -> str:
        asked.append(prompt)
        return "Answer: A."

    p = asyncio.run(run_tournament(step, reject, seed=3))
    assert p.element is None and len(asked) == 10
    assert all(len(_OPTION.findall(q)) == 5 for q in asked)

    async def first_option(prompt: str) -> str:
        return "Answer: B. Action: CLICK"

    a = asyncio.run(run_tournament(step, first_option, seed=3))
    b = asyncio.run(run_tournament(step, first_option, seed=3))
    c = asyncio.run(run_tournament(step, first_option, seed=4))
    assert a.element == b.element and a.element is not None
    assert a.meta["rounds"] == 13  # 10 groups, then 2 of the 10 winners, then the last 2
    assert c.element is not None


def test_unreadable_replies_and_bad_letters_are_unparseable_not_none(steps):
    step = steps[0]

    async def bad_letter(prompt: str) -> str:
        return "Answer: Z. Action: CLICK"  # there are options B to F at most

    async def junk(prompt: str) -> str:
        return "???"

    async def rejects(prompt: str) -> str:
        return "Answer: A."

    p = asyncio.run(run_tournament(step, bad_letter, seed=0))
    assert p.element is None and p.outcome == "unparseable"
    assert "names none of the" in p.meta["reason"]
    p = asyncio.run(run_tournament(step, junk, seed=0))
    assert p.element is None and p.outcome == "unparseable" and p.meta["reply"] == "???"
    assert p.meta["rounds"] == 1  # the tournament stops: the reply says nothing
    p = asyncio.run(run_tournament(step, rejects, seed=0))
    assert p.element is None and p.outcome == "none_of_the_above"


def test_unparseable_page_gives_no_prediction(steps):
    issues = IssueLog()
    bad = steps[0].model_copy(update={"cleaned_html": "<html><b></html>"})

    async def never(prompt: str) -> str:
        raise AssertionError("must not be asked")

    p = asyncio.run(run_tournament(bad, never, issues=issues))
    assert p.element is None and len(issues) == 1
    assert list(issues)[0].action_uid == bad.action_uid


def test_direct_baseline(steps, server):
    client = _client(server)
    step = steps[0]
    expected_number: dict[str, int] = {}

    def reply(req) -> str:
        m = re.search(r"<(button|input|select) id=(\d+) (submit|text|[\w ]*option)>?",
                      req.last_user)
        expected_number["n"] = int(m.group(2)) if m else -1
        return f"Element: <x id={expected_number['n']}>\nAction: CLICK\nValue:"

    server.add_rule(reply, contains="What is the next action?")

    async def go():
        try:
            return await DirectPredictor(llm_ask(client)).predict(step)
        finally:
            await client.aclose()

    p = asyncio.run(go())
    assert p.op == "CLICK" and (p.element is not None or expected_number["n"] == -1)


def test_file_and_callable_predictors(steps, tmp_path):
    path = tmp_path / "p.jsonl"
    s0 = steps[0]
    write_predictions(path, [StepPrediction(annotation_id=s0.annotation_id,
                                            action_uid=s0.action_uid,
                                            element=s0.positive_ids[0],
                                            op=s0.operation.op, value=s0.operation.value)])
    fp = FilePredictor(path)
    got = asyncio.run(predict_all(steps[:2], fp))
    assert got[0].element == s0.positive_ids[0] and got[1].element is None

    async def gold(step):
        return {"element": step.positive_ids[0], "op": step.operation.op,
                "value": step.operation.value}

    preds = asyncio.run(predict_all(steps, CallablePredictor(gold)))
    m = score_steps(steps, preds)
    assert m.micro.element_acc == m.recall_cap["50"]
    tuples = asyncio.run(predict_all(steps[:1], CallablePredictor(
        lambda s: (s.positive_ids[0], "CLICK", ""))))
    assert tuples[0].op == "CLICK"
    boom = asyncio.run(predict_all(steps[:1], CallablePredictor(lambda s: 1 / 0)))
    assert boom[0].element is None and "ZeroDivisionError" in boom[0].meta["error"]
