"""Structured output: JSON as models write it parses; anything else is a ParseFailure that
carries the raw text (and becomes *unscored*, never a score)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from webtraj.llm import LLMClient, ParseFailure, parse_reply
from webtraj.llm.lenient_json import loads_lenient
from webtraj.model import Score

# --- generated JSON and the ways models write it ------------------------------------------

_leaves = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12,
)
_objects = st.dictionaries(st.text(max_size=10), _values, min_size=1, max_size=5)
_prose = st.text(alphabet=st.characters(blacklist_characters="{}[]`",
                                        blacklist_categories=("Cs",)), max_size=60)


def _string(s: str, quote: str) -> str:
    body = json.dumps(s, ensure_ascii=False)[1:-1]
    if quote == "'":
        body = body.replace('\\"', '"').replace("'", "\\'")
    return quote + body + quote


def _render(v: Any, *, trailing: bool, quote: str, python: bool) -> str:
    """JSON the way models write it: optional trailing commas, quotes and Python words."""
    def r(x: Any) -> str:
        return _render(x, trailing=trailing, quote=quote, python=python)

    if v is None:
        return "None" if python else "null"
    if isinstance(v, bool):
        return ("True" if v else "False") if python else ("true" if v else "false")
    if isinstance(v, int | float):
        return json.dumps(v)
    if isinstance(v, str):
        return _string(v, quote)
    tail = ",\n" if trailing else "\n"
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[\n" + ",\n".join("  " + r(x) for x in v) + tail + "]"
    if not v:
        return "{}"
    items = ",\n".join(f"  {_string(k, quote)}: {r(x)}" for k, x in v.items())
    return "{\n" + items + tail + "}"


_styles = st.fixed_dictionaries({"trailing": st.booleans(), "quote": st.sampled_from("\"'"),
                                 "python": st.booleans()})


def _same(a: Any, b: Any) -> bool:
    return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
        b, option=orjson.OPT_SORT_KEYS)


@settings(max_examples=150, deadline=None)
@given(obj=_objects, style=_styles)
def test_lenient_reader_reads_every_style(obj, style):
    assert _same(loads_lenient(_render(obj, **style)), obj)


@settings(max_examples=150, deadline=None)
@given(obj=_objects, style=_styles, before=_prose, after=_prose,
       wrap=st.sampled_from(["bare", "fenced-json", "fenced-plain", "fenced-in-prose"]))
def test_json_variants_parse(obj, style, before, after, wrap):
    text = _render(obj, **style)
    if wrap == "fenced-json":
        text = f"```json\n{text}\n```"
    elif wrap == "fenced-plain":
        text = f"```\n{text}\n```"
    elif wrap == "fenced-in-prose":
        text = f"{before}\n```json\n{text}\n```\n{after}"
    else:
        text = f"{before} {text} {after}"
    result = parse_reply(text, dict[str, Any])
    assert not isinstance(result, ParseFailure), result
    assert _same(result, obj)


@settings(max_examples=150, deadline=None)
@given(text=_prose)
def test_text_without_json_is_a_parse_failure_with_the_raw_text(text):
    result = parse_reply(text, dict[str, Any])
    assert isinstance(result, ParseFailure)
    assert result.raw == text
    assert result.stage in ("empty", "no_json")


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_parsing_never_raises(text):
    result = parse_reply(text, dict[str, int])
    assert isinstance(result, dict | ParseFailure)
    if isinstance(result, ParseFailure):
        assert result.raw == text


# --- the the constraint-based evaluation paper judge reply and typed schemas
# --------------------------------------------

class ConstraintVerdict(BaseModel):
    ground_truth: Any
    agent_state: Any = None
    matching: bool


JUDGE_REPLY = """The page shows a listing in Aspen but the check-in date differs.

```
{
  "made_selection": {
    "ground_truth": true,
    "agent_state": "true",
    "matching": "true",
  },
  "location": {
    "ground_truth": "Aspen, CO",
    "agent_state": "Aspen",
    "matching": "true",
  },
  "start_date": {
    "ground_truth": "January 08, 2025",
    "agent_state": "January 11, 2025",
    "matching": "false",
  }
}
```
"""


def test_the_papers_judge_reply_with_trailing_commas_parses():
    verdicts = parse_reply(JUDGE_REPLY, dict[str, ConstraintVerdict])
    assert not isinstance(verdicts, ParseFailure), verdicts
    assert {k: v.matching for k, v in verdicts.items()} == {
        "made_selection": True, "location": True, "start_date": False}
    assert verdicts["location"].agent_state == "Aspen"


class Outcome(BaseModel):
    status: str
    confidence: float


def test_the_candidate_that_fits_the_schema_wins():
    text = ('The format is {"example": 1}. My answer: {"status": "success", "confidence": 0.9}'
            " and a list [1, 2].")
    out = parse_reply(text, Outcome)
    assert out == Outcome(status="success", confidence=0.9)


def test_wrong_shape_is_a_validation_failure_naming_the_field():
    out = parse_reply('{"status": "success"}', Outcome)
    assert isinstance(out, ParseFailure) and out.stage == "validation"
    assert "confidence" in out.error and out.raw == '{"status": "success"}'


def test_single_quotes_and_python_words():
    out = parse_reply("Sure! {'status': 'fail', 'confidence': 1, 'extra': None}", dict)
    assert out == {"status": "fail", "confidence": 1, "extra": None}


@pytest.mark.parametrize("text", ["", "   ", "SUCCESS", "{not json at all", "[[[[", "}{"])
def test_garbage_is_a_parse_failure(text):
    out = parse_reply(text, Outcome)
    assert isinstance(out, ParseFailure) and out.raw == text


def test_deep_nesting_does_not_crash():
    out = parse_reply("[" * 5000 + "]" * 5000, dict)
    assert isinstance(out, ParseFailure)


# --- re-ask through the client ------------------------------------------------------------

async def test_reask_once_with_the_validation_error(server, make_spec, cache):
    server.add_rule('{"status": "success"}', contains="Judge the run")
    server.add_rule('```json\n{"status": "success", "confidence": 0.8,}\n```',
                    contains="corrected JSON")
    async with LLMClient(make_spec(), cache=cache) as client:
        res = await client.structured("Judge the run", Outcome)
        assert res.ok and res.reasked
        assert res.value == Outcome(status="success", confidence=0.8)
        assert server.request_count == 2
        reask = server.requests[1]
        assert reask.messages[-2]["content"] == '{"status": "success"}'  # its own reply
        assert "confidence" in reask.last_user  # the validation error
        again = await client.structured("Judge the run", Outcome)  # cached, both turns
    assert again.value == res.value and server.request_count == 2


async def test_unparseable_after_reask_is_unscored_not_a_score(server, make_spec):
    server.add_rule("I believe the agent did well.", contains="Judge")
    server.add_rule("Still no JSON, sorry.", contains="corrected JSON")
    async with LLMClient(make_spec()) as client:
        res = await client.structured("Judge this", Outcome)
        no_reask = await client.structured("Judge that", Outcome, reask=False)
    assert not res.ok and res.value is None
    assert res.failure.raw == "Still no JSON, sorry." and res.failure.reasked
    assert not no_reask.ok and not no_reask.reasked
    assert no_reask.failure.raw == "I believe the agent did well."
    score = Score.unscored("outcome-judge", res.failure.reason)
    assert score.value is None and "unparseable model reply" in score.reason


async def test_structured_many_keeps_order(server, make_spec):
    server.add_rule(lambda r: json.dumps({"status": r.last_user, "confidence": 1}))
    async with LLMClient(make_spec()) as client:
        res = await client.structured_many([f"s{i}" for i in range(30)], Outcome)
    assert [r.value.status for r in res] == [f"s{i}" for i in range(30)]
