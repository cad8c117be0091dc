"""Mind2Web metrics: unit edge cases and exact agreement with a re-statement of the
reference evaluator on random data."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webtraj.evaluate.mind2web.step_metrics import (
    aggregate,
    np_mean,
    predicted_action,
    reference_action,
    score_step,
    score_steps,
    token_f1,
)
from webtraj.formats.mind2web import Candidate, M2WStep, Operation
from webtraj.formats.mind2web.predictions import StepPrediction


def step(aid="t1", uid="s1", op="CLICK", value="", pos=(("10", 0),), neg=(("11", 1),),
         website="site", domain="dom") -> M2WStep:
    return M2WStep(
        annotation_id=aid, action_uid=uid, website=website, domain=domain,
        operation=Operation(op=op, value=value),
        pos_candidates=tuple(Candidate(backend_node_id=i, rank=r) for i, r in pos),
        neg_candidates=tuple(Candidate(backend_node_id=i, rank=r) for i, r in neg))


def pred(aid="t1", uid="s1", element="10", op="CLICK", value=""):
    return StepPrediction(annotation_id=aid, action_uid=uid, element=element, op=op,
                          value=value)


# --- token F1 ---------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "want"), [
    ("TYPE", "TYPE JFK", 2 / 3),
    ("TYPE JFK", "TYPE JFK", 1),
    ("TYPE JFK JFK", "TYPE JFK", 1),          # sets: repeats ignored
    ("TYPE jfk", "TYPE JFK", 0.5),            # case-sensitive
    ("TYPE JFK,", "TYPE JFK", 0.5),           # punctuation stays on its token
    ("SELECT New York", "SELECT York New", 1),  # order ignored
    ("", "", 1),
    ("   ", "", 1),
    ("CLICK", "", 0),
    ("", "CLICK", 0),
    ("CLICK", "TYPE", 0),
])
def test_token_f1(a, b, want):
    assert token_f1(a, b) == pytest.approx(want)


def test_reference_action_strings():
    assert reference_action("CLICK", "ignored value").split() == ["CLICK"]
    assert reference_action("TYPE", "  Brooklyn  ") == "TYPE Brooklyn"
    assert reference_action("SELECT", "Pickup\nsecond line") == "SELECT Pickup"
    assert reference_action("TYPE", "") .split() == ["TYPE"]
    assert reference_action("TYPE", "\nhidden") .split() == ["TYPE"]
    assert predicted_action("CLICK", "Search") == "CLICK Search"
    assert predicted_action("click", "x") == " x"   # op must be upper-case to count
    assert predicted_action(None, None).strip() == ""


# --- per step -------------------------------------------------------------------------
def test_correct_click():
    r = score_step(step(), pred())
    assert (r.element_correct, r.op_f1, r.step_success) == (1, 1, 1)


def test_click_with_value_is_not_a_full_match():
    r = score_step(step(), pred(value="Search"))
    assert r.element_correct == 1 and r.op_f1 == pytest.approx(2 / 3) and r.step_success == 0


def test_gold_click_value_is_ignored():
    r = score_step(step(value="something"), pred())
    assert r.step_success == 1


def test_no_prediction_scores_zero_even_if_op_matches():
    assert score_step(step(), None).op_f1 == 0
    r = score_step(step(), pred(element=None))
    assert (r.element_correct, r.op_f1, r.step_success, r.predicted) == (0, 0, 0, False)


def test_empty_positives_fail():
    r = score_step(step(pos=()), pred())
    assert (r.element_correct, r.op_f1, r.step_success) == (0, 0, 0)
    assert r.acceptable == ()


def test_positive_beyond_recall_cap_fails():
    r = score_step(step(pos=(("10", 50),)), pred())
    assert r.step_success == 0 and r.op_f1 == 0
    assert score_step(step(pos=(("10", 49),)), pred()).step_success == 1
    assert score_step(step(pos=(("10", 60),)), pred(), top_k=100).step_success == 1


def test_any_acceptable_positive_counts():
    s = step(pos=(("10", 70), ("12", 3)))
    assert score_step(s, pred(element="12")).element_correct == 1
    assert score_step(s, pred(element="10")).element_correct == 0  # ranked out


def test_unranked_positive_is_acceptable():
    assert score_step(step(pos=(("10", None),)), pred()).step_success == 1


def test_wrong_element_right_op():
    r = score_step(step(), pred(element="11"))
    assert (r.element_correct, r.op_f1, r.step_success) == (0, 1, 0)


def test_type_values_and_multiline():
    s = step(op="TYPE", value="New York\nextra")
    assert score_step(s, pred(op="TYPE", value="New York")).step_success == 1
    assert score_step(s, pred(op="TYPE", value="New York\nother")).step_success == 1
    assert score_step(s, pred(op="TYPE", value="new york")).op_f1 == pytest.approx(1 / 3)
    assert score_step(s, pred(op="SELECT", value="New York")).op_f1 == pytest.approx(2 / 3)


def test_integer_element_ids_compare_as_text():
    assert score_step(step(), pred(element=10)).element_correct == 1


# --- aggregation ----------------------------------------------------------------------
def test_macro_vs_micro_and_task_success():
    steps = [step("a", "1"), step("a", "2"), step("a", "3"), step("b", "1", website="w2")]
    preds = [pred("a", "1"), pred("a", "2"), pred("b", "1")]  # a/3 missing
    m = score_steps(steps, preds)
    assert m.micro.step_sr == pytest.approx(3 / 4)
    assert m.step_sr == pytest.approx((2 / 3 + 1) / 2)
    assert m.task_sr == pytest.approx(0.5)
    assert m.error_ratio == {"0": 0.5, "1": 0.5, "2": 0.0, "3": 0.0, ">3": 0.0}
    assert m.per_website["site"].steps == 3 and m.per_website["site"].tasks == 1
    assert m.per_website["w2"].task_sr == 1.0
    assert m.per_domain["dom"].tasks == 2
    assert m.n_tasks == 2 and m.n_steps == 4 and m.n_predicted == 3


def test_error_buckets_above_three():
    steps = [step("a", str(i)) for i in range(5)]
    m = score_steps(steps, [])
    assert m.error_ratio[">3"] == 1.0 and m.task_sr == 0.0


def test_trailing_unanswerable_steps_count_unless_reference_mode():
    steps = [step("a", "1"), step("b", "1", pos=())]
    preds = [pred("a", "1")]
    assert score_steps(steps, preds).step_sr == 0.5
    ref = score_steps(steps, preds, drop_trailing_unranked=True)
    assert ref.step_sr == 1.0 and ref.n_tasks == 1 and ref.micro.step_sr == 0.5


def test_recall_cap():
    steps = [step("a", "1", pos=(("1", 0),)), step("a", "2", pos=(("1", 7),)),
             step("a", "3", pos=()), step("a", "4", pos=(("1", 55),))]
    m = score_steps(steps, [])
    assert m.recall_cap == {"1": 0.25, "5": 0.25, "10": 0.5, "20": 0.5, "50": 0.5}
    assert m.n_unanswerable == 2


def test_empty_input():
    m = aggregate([])
    assert m.n_steps == 0 and m.step_sr == 0.0


def test_np_mean_matches_numpy_bit_for_bit():
    np = pytest.importorskip("numpy")
    import random

    rng = random.Random(3)
    for n in [1, 2, 7, 8, 9, 16, 127, 128, 129, 255, 256, 1000, 4099]:
        xs = [rng.choice([0, 1, 2 / 3, 0.4, rng.random()]) for _ in range(n)]
        assert np_mean(xs) == float(np.mean(xs))


# --- exact agreement with the reference loop --------------------------------------------
VALUES = ["", "Brooklyn", "New York", "new york", "JFK", "  JFK  ", "New York\nNY",
          "a, b", "Two adults", "\nhidden", "a\tb", "JFK\r\nx", "\u00a0JFK", "x\u2028y",
          "York New York"]
OPS = ["CLICK", "TYPE", "SELECT"]
PRED_OPS = [*OPS, "click", "", "TYPE ", " TYPE", "SELECTED"]


@st.composite
def dataset(draw):
    samples, preds = [], {}
    n_tasks = draw(st.integers(1, 5))
    for t in range(n_tasks):
        site = draw(st.sampled_from(["s1", "s2", "s3"]))
        for s in range(draw(st.integers(1, 6))):
            n_pos = draw(st.integers(0, 3))
            pos = [{"backend_node_id": str(100 + i), "rank": draw(st.integers(0, 70))}
                   for i in range(n_pos)]
            neg = [{"backend_node_id": str(200 + i), "rank": draw(st.integers(0, 70))}
                   for i in range(draw(st.integers(0, 3)))]
            op = draw(st.sampled_from(OPS))
            sample = {"annotation_id": f"t{t}", "action_uid": f"u{s}", "website": site,
                      "operation": {"op": op, "value": draw(st.sampled_from(VALUES))},
                      "pos_candidates": pos, "neg_candidates": neg}
            samples.append(sample)
            kind = draw(st.integers(0, 3))
            if kind == 0:
                continue  # no prediction line
            element = None if kind == 1 else draw(st.sampled_from(
                [c["backend_node_id"] for c in pos + neg] + ["999"]))
            preds[(f"t{t}", f"u{s}")] = (element, draw(st.sampled_from(PRED_OPS)),
                                         draw(st.sampled_from(VALUES)))
    return samples, preds


def _to_step(s: dict) -> M2WStep:
    return M2WStep(
        annotation_id=s["annotation_id"], action_uid=s["action_uid"], website=s["website"],
        operation=Operation(**s["operation"]),
        pos_candidates=tuple(Candidate(**c) for c in s["pos_candidates"]),
        neg_candidates=tuple(Candidate(**c) for c in s["neg_candidates"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset())
def test_matches_reference_exactly(data):
    pytest.importorskip("numpy")
    from mind2web.reference_oracle import reference_metrics

    samples, preds = data
    ref = reference_metrics(samples, preds)
    ours = score_steps(
        [_to_step(s) for s in samples],
        [StepPrediction(annotation_id=a, action_uid=u, element=e, op=o, value=v)
         for (a, u), (e, o, v) in preds.items()],
        drop_trailing_unranked=True)
    assert ours.micro.element_acc == float(ref["element_acc"])
    assert ours.micro.op_f1 == float(ref["action_f1"])
    assert ours.micro.step_sr == float(ref["step_acc"])
    if "macro_step_acc" not in ref:  # the reference never reached its macro block
        return
    assert ours.element_acc == float(ref["macro_element_acc"])
    assert ours.op_f1 == float(ref["macro_action_f1"])
    assert ours.step_sr == float(ref["macro_step_acc"])
    for k, v in ours.error_ratio.items():
        assert v == ref["error_ratio"].get(k, 0.0)
    assert ours.task_sr == ref["error_ratio"].get("0", 0.0)
    assert set(ours.per_website) == set(ref["acc_per_website"])
    for site, (mean, n) in ref["acc_per_website"].items():
        assert ours.per_website[site].step_sr == float(mean)
        assert ours.per_website[site].tasks == n
    assert not math.isnan(ours.op_f1)
