import pytest

from webtraj.evaluate.agreement import Confusion, compare
from webtraj.model import Score
from webtraj.model.score import ConstraintCheck, upgrade_legacy_score


def test_kappa_known_values():
    c = Confusion(yes_yes=20, yes_no=5, no_yes=10, no_no=15)
    assert c.accuracy == pytest.approx(0.7)
    # po = 0.7; pe = 0.5*0.6 + 0.5*0.4 = 0.5 -> kappa = 0.4
    assert c.kappa == pytest.approx(0.4)
    assert Confusion(yes_yes=3).kappa is None


def _score(name, matches):
    checks = tuple(ConstraintCheck(name=k, ground_truth=1, matching=v)
                   for k, v in matches.items())
    decided = [v for v in matches.values() if v is not None]
    value = None if len(decided) < len(matches) else sum(decided) / len(decided)
    return Score(evaluator=name, value=value, reason=None if value is not None else "x",
                 constraints=checks)


def test_compare_per_constraint_and_gaps():
    pairs = [
        {"j": _score("j", {"a": True, "b": True}), "r": _score("r", {"a": True, "b": False})},
        {"j": _score("j", {"a": False, "b": None}), "r": _score("r", {"a": False, "b": True})},
        {"j": _score("j", {"a": True, "b": True}), "r": _score("r", {"a": True, "b": True})},
    ]
    stats = compare(pairs, "j", "r")
    assert stats.trajectories == 3 and stats.undecided == 1
    assert stats.by_constraint["a"].accuracy == 1.0
    assert stats.by_constraint["b"].yes_no == 1 and stats.by_constraint["b"].yes_yes == 1
    assert stats.overall.n == 5
    assert stats.judge_sr == 1.0 and stats.reference_sr == 0.5
    assert stats.sr_gap == pytest.approx(0.5)


def test_step_level_agreement_from_step_matching():
    """Scores stored in the older form (`details.step_matching`), read as the store reads
    them, compare step by step like current ones."""
    def steps_score(name, rows):
        return Score.model_validate(upgrade_legacy_score(
            {"evaluator": name, "value": 1.0, "details": {"step_matching": rows}}))

    pairs = [{"j": steps_score("j", [{"a": False}, {"a": True}, {"a": True}]),
              "r": steps_score("r", [{"a": False}, {"a": False}, {"a": True}])}]
    stats = compare(pairs, "j", "r")
    assert stats.all_steps.n == 3 and stats.all_steps.yes_no == 1
    assert stats.summary()["all_steps"]["accuracy"] == pytest.approx(2 / 3)
