"""AgentResponseEvaluator (REFERENCE.md §3a.9) and the value types behind it."""

from __future__ import annotations

import json

import pytest

RETRIEVE = {"task_type": "retrieve", "status": "SUCCESS", "retrieved_data": ["Blue Shirt"]}
STRINGS = {"type": "array", "items": {"type": "string"}}
OBJ = {"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": ["blue shirt"]}


def ok(wav, answer, expected=RETRIEVE, schema=STRINGS, **kw) -> str:
    return wav.response(expected, answer, schema=schema, **kw).status.value


def test_dict_json_text_and_fenced_block(wav):
    assert ok(wav, json.dumps(OBJ)) == "success"
    fenced = "Here you go:\n```json\n" + json.dumps(OBJ) + "\n```\nThanks!"
    assert ok(wav, fenced) == "success"
    assert ok(wav, "```\n" + json.dumps(OBJ) + "\n```") == "success"


@pytest.mark.parametrize("answer", [
    json.dumps(json.dumps(OBJ)),  # a JSON string holding the object
    json.dumps("```json\n" + json.dumps(OBJ) + "\n```"),  # a JSON string holding a fence
    "",  # an empty file
    "The shirt is blue.",  # prose
    "[1, 2]",
])
def test_unusable_answers_fail(wav, answer):
    v = wav.response(RETRIEVE, answer, schema=STRINGS)
    assert v.status.value == "failure"


def test_case_whitespace_and_legacy_key(wav):
    a = {"performed_operation": "  retrieve ", "status": " success",
         "retrieved_data": ["BLUE SHIRT"]}
    assert ok(wav, json.dumps(a)) == "success"


def test_wrong_type_or_status_fails(wav):
    assert ok(wav, json.dumps({**OBJ, "task_type": "NAVIGATE"})) == "failure"
    assert ok(wav, json.dumps({**OBJ, "status": "NOT_FOUND_ERROR"})) == "failure"
    assert ok(wav, json.dumps({"status": "SUCCESS", "retrieved_data": ["blue shirt"]})) \
        == "failure"


def test_non_string_status_is_error(wav):
    assert ok(wav, json.dumps({**OBJ, "status": 1})) == "error"


def test_non_retrieve_tasks_ignore_retrieved_data(wav):
    exp = {"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": None}
    for data in (["anything"], [], None, "x"):
        assert ok(wav, json.dumps({"task_type": "MUTATE", "status": "SUCCESS",
                                   "retrieved_data": data}), exp, {"type": "null"}) == "success"
    assert ok(wav, json.dumps({"task_type": "MUTATE", "status": "SUCCESS"}), exp,
              {"type": "null"}) == "success"


@pytest.mark.parametrize("data", [[], None])
def test_missing_empty_and_null_are_none(wav, data):
    exp = {"task_type": "RETRIEVE", "status": "NOT_FOUND_ERROR", "retrieved_data": None}
    ans = {"task_type": "RETRIEVE", "status": "NOT_FOUND_ERROR", "retrieved_data": data}
    assert ok(wav, json.dumps(ans), exp) == "success"
    del ans["retrieved_data"]
    assert ok(wav, json.dumps(ans), exp) == "success"
    assert ok(wav, json.dumps({**ans, "retrieved_data": ["x"]}), exp) == "failure"


def test_expected_data_missing_in_answer(wav):
    v = wav.response(RETRIEVE, json.dumps({**OBJ, "retrieved_data": []}), schema=STRINGS)
    assert [a.name for a in v.assertions] == ["retrieved_data_missing_or_null"]


def test_scalar_counts_as_one_item_list(wav):
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": "Blue Shirt"})) == "success"
    num = {"type": "array", "items": {"type": "number"}}
    exp = {**RETRIEVE, "retrieved_data": [42]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": 42}), exp, num) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": "42"}), exp, num) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": "1,234"}),
              {**RETRIEVE, "retrieved_data": [1234]}, num) == "success"


def test_unordered_multiset_and_ordered(wav):
    exp = {**RETRIEVE, "retrieved_data": ["a", "b", "a"]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["b", "a", "a"]}), exp) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["b", "a"]}), exp) == "failure"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["a", "b", "a", "c"]}), exp) == "failure"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["b", "a", "a"]}), exp,
              ordered=True) == "failure"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["a", "b", "a"]}), exp,
              ordered=True) == "success"


def test_alternatives_in_expected(wav):
    exp = {**RETRIEVE, "retrieved_data": [["Blue", "Navy"]]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["navy"]}), exp) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["red"]}), exp) == "failure"


def test_punctuation_stripped_for_plain_strings_only(wav):
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ['"Blue Shirt."']})) == "success"
    url = {"type": "array", "items": {"type": "string", "format": "url"}}
    exp = {**RETRIEVE, "retrieved_data": ["git@__SSH_HOST__:a/b.git"]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["git@git.test:a/b.git"]}), exp, url) \
        == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["'git@git.test:a/b.git'"]}), exp,
              url) == "failure"


def test_currency_and_numbers_as_strings(wav):
    cur = {"type": "array", "items": {"type": "number", "format": "currency"}}
    exp = {**RETRIEVE, "retrieved_data": [1234.5]}
    for got in ("$1,234.50", "1234.55", 1234.5, "USD 1234.5"):
        assert ok(wav, json.dumps({**OBJ, "retrieved_data": [got]}), exp, cur) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["$1,235"]}), exp, cur) == "failure"


@pytest.mark.parametrize(("fmt", "want", "got", "status"), [
    ("month", "January", "jan", "success"),
    ("month", "January", "1", "success"),
    ("month", "January", "Feb", "failure"),
    ("duration", "2h 30m", "150 minutes", "success"),
    ("duration", "2h 30m", "1:35 hours", "failure"),
    ("duration", "60 min", "62 min", "success"),
    ("distance", "5 km", "5.05km", "success"),
    ("distance", "5 km", "3.1 miles", "success"),
    ("distance", "5 km", "6 km", "failure"),
    ("location-name", "Carnegie Mellon University", "carnegie mellon univ", "success"),
    ("location-name", "Carnegie Mellon University", "University of Pittsburgh", "failure"),
    ("url", "git@__SSH_HOST__:a/Repo.git", "ssh://git@git.test:2222/a/repo.git", "success"),
    ("url", "git@__SSH_HOST__:a/repo.git", "git@git.test:a/other.git", "failure"),
    ("url", "http://shop.test:7770/p/1", "http://SHOP.test:7770/p/1/", "success"),
    ("url", "__SHOPPING__/p/1", "http://shop.test:7770/p/1", "error"),  # as upstream
])
def test_formats(wav, fmt, want, got, status):
    schema = {"type": "array", "items": {"type": "string", "format": fmt}}
    exp = {**RETRIEVE, "retrieved_data": [want]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": [got]}), exp, schema) == status


def test_coordinates_and_booleans(wav):
    schema = {"type": "array", "items": {"format": "coordinates"}}
    exp = {**RETRIEVE, "retrieved_data": [[40.4433, -79.9436]]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["40.4433, -79.9436"]}), exp, schema) \
        == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": [{"lat": 40.4433, "lng": -79.9}]}),
              exp, schema) == "failure"
    b = {"type": "array", "items": {"type": "boolean"}}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["yes"]}),
              {**RETRIEVE, "retrieved_data": [True]}, b) == "success"


def test_objects_with_schema(wav):
    schema = {"type": "array", "items": {"type": "object", "properties": {
        "month": {"type": "string", "format": "month"}, "count": {"type": "number"}}}}
    exp = {**RETRIEVE, "retrieved_data": [{"month": "May", "count": 8}]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": [{"month": "5", "count": "8"}]}),
              exp, schema) == "success"
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": [{"month": "May"}]}), exp, schema) \
        == "failure"


def test_trademark_unicode_and_hyphens_fold(wav):
    exp = {**RETRIEVE, "retrieved_data": ["Quest Lumaflex™ Band"]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["quest lumaflex band"]}), exp) \
        == "success"
    exp2 = {**RETRIEVE, "retrieved_data": ["Buffalo-Niagara Café"]}
    assert ok(wav, json.dumps({**OBJ, "retrieved_data": ["buffalo niagara cafe"]}), exp2) \
        == "success"


def test_fixture_logs_reproduce_reference(wav_fixtures):
    from webtraj.suites.webarena_verified.evaluate import SiteUrls, evaluate_log_dir

    tasks = {t["task_id"]: t for t in json.loads(
        (wav_fixtures / "webarena-verified.json").read_text())}
    urls = SiteUrls({"shopping_admin": "http://192.168.1.35:7780/admin",
                     "shopping": "http://192.168.1.35:7770"})
    for tid in (107, 108):
        log = wav_fixtures / "agent_logs" / str(tid)
        ref = json.loads((log / "eval_result.json").read_text())
        got = evaluate_log_dir(tasks[tid], log, site_urls=urls)
        assert (got.status.value, got.score) == (ref["status"], ref["score"])
        for mine, theirs in zip(got.evaluators, ref["evaluators_results"], strict=True):
            assert mine.name == theirs["evaluator_name"]
            assert (mine.status.value, mine.score) == (theirs["status"], theirs["score"])
            assert [a.name for a in mine.assertions] == [
                a["assertion_name"] for a in theirs["assertions"] or ()]
