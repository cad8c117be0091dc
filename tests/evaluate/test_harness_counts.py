"""The Eval harness and the run it stores say the same numbers: `EvalResult.summary` and
`grouped(key)` are read from the run's index (`IndexReader.evaluator_counts_by`, the one home
of per-evaluator counts), so each scorer's scored, unscored, errors and mean are what `runs
show --json` prints, and its skipped cases are the unscored plus the errors (a case whose task
failed is an error there, never a score)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from webtraj.evaluate.harness import Eval, EvalResult, action_correct, operation_match
from webtraj.model.errors import InputError
from webtraj.store import RunStore


def test_eval_summary_agrees_with_runs_show(tmp_path):
    def task(inp):
        if inp["i"] == 2:
            raise RuntimeError("model down")
        return {"op": "CLICK" if inp["i"] % 2 else "TYPE", "value": "JFK"}

    def skip_odd(input, output):
        return None if input["i"] % 2 else 0.5

    cases = [{"input": {"i": i}, "expected": {"op": "CLICK", "value": "JFK"}}
             for i in range(5)]
    result = Eval("counts", cases, task, [operation_match, action_correct, skip_odd],
                  store=tmp_path / "run").run()
    show = json.loads(subprocess.run(
        [sys.executable, "-m", "webtraj.cli.app", "runs", "show", str(tmp_path / "run"),
         "--json"], capture_output=True, text=True, check=True).stdout)
    assert set(show["evaluators"]) == set(result.summary)
    for name, summary in result.summary.items():
        counts = show["evaluators"][name]
        assert counts["scored"] == summary.scored, name
        assert counts["unscored"] + counts["errors"] == summary.skipped, name
        assert counts["mean"] == pytest.approx(summary.mean), name
    assert show["evaluators"]["operation_match"]["errors"] == 1  # the failed case
    assert result.summary["skip_odd"].scored == 2


def _runs_show(run) -> dict:
    return json.loads(subprocess.run(
        [sys.executable, "-m", "webtraj.cli.app", "runs", "show", str(run), "--json"],
        capture_output=True, text=True, check=True).stdout)["evaluators"]


def _as_shown(summaries) -> dict:
    """A harness summary in the fields `runs show --json` prints for each evaluator."""
    return {name: {"scored": s.scored, "unscored": s.unscored, "errors": s.errors,
                   "mean": s.mean} for name, s in summaries.items()}


def _shown(evaluators: dict) -> dict:
    return {name: {k: e[k] for k in ("scored", "unscored", "errors", "mean")}
            for name, e in evaluators.items()}


def test_summary_and_groups_are_the_stores_numbers(tmp_path):
    """Overall and by website, the harness's numbers are exactly what `runs show --json`
    prints for a run of those cases: a skipped value is unscored, a failed task and a failed
    scorer are errors (counted apart, and together the skipped), means equal to the bit."""
    def task(inp):
        if inp["i"] == 4:
            raise RuntimeError("model down")
        return {"op": "CLICK" if inp["i"] % 3 else "TYPE", "value": "JFK"}

    def third(input):
        return None if input["i"] % 2 else 1 / 3  # skipped on odd cases

    def broken(input):
        if input["i"] == 0:
            raise KeyError("oops")
        return 0.7

    cases = [{"input": {"i": i}, "expected": {"op": "CLICK", "value": "JFK"},
              "metadata": {"website": "a" if i < 3 else "b"}} for i in range(7)]
    scorers = [operation_match, action_correct, third, broken]
    result = Eval("groups", cases, task, scorers, store=tmp_path / "all",
                  group_by=["website"]).run()
    assert _as_shown(result.summary) == _shown(_runs_show(tmp_path / "all"))
    s = result.summary
    assert (s["third"].scored, s["third"].unscored, s["third"].errors) == (3, 3, 1)
    assert (s["broken"].scored, s["broken"].errors, s["broken"].skipped) == (5, 2, 2)
    assert all(x.skipped == x.unscored + x.errors for x in s.values())

    by_site = result.grouped("website")
    assert list(by_site) == ["a", "b"]
    for site in by_site:  # each group is what the store says of a run of its cases alone
        Eval(f"site-{site}", [c for c in cases if c["metadata"]["website"] == site], task,
             scorers, store=tmp_path / site).run()
        assert _as_shown(by_site[site]) == _shown(_runs_show(tmp_path / site)), site
    assert by_site["b"]["operation_match"].errors == 1  # case 4's task failed
    with RunStore.open(tmp_path / "all") as store:
        assert store.info.results["grouped"]["website"]["b"]["third"] == {
            "mean": 1 / 3, "scored": 1, "skipped": 3, "unscored": 2, "errors": 1}


def test_cases_sharing_an_id_are_refused(tmp_path):
    """Stored as one trajectory, two cases with one id would be counted once by the store
    and twice by a loop over the cases: refused, naming the case, before any task runs."""
    def score(output):
        return output

    ran = []
    cases = [{"id": "x", "input": 1.0}, {"id": "y", "input": 1.0}, {"id": "x", "input": 0.0}]
    with pytest.raises(InputError, match=r"case 2 has the id 'x' of case 0") as err:
        Eval("dup", cases, lambda i: ran.append(i) or i, [score], store=tmp_path / "run").run()
    assert err.value.field == "id" and not ran and not (tmp_path / "run").exists()


def test_a_reused_store_summarizes_this_evals_cases(tmp_path):
    """Other cases and scorers already in the store stay out of this Eval's numbers."""
    def one(output):
        return 1.0

    def zero(output):
        return 0.0

    first = [{"id": f"old-{i}", "input": i} for i in range(3)]
    Eval("e", first, lambda i: i, [one, zero], store=tmp_path / "run").run()
    result = Eval("e", [{"id": "new", "input": 5}], lambda i: i, [one],
                  store=tmp_path / "run").run()
    assert _as_shown(result.summary) == {
        "one": {"scored": 1, "unscored": 0, "errors": 0, "mean": 1.0}}
    assert _runs_show(tmp_path / "run")["one"]["scored"] == 4


def test_grouped_by_a_key_no_case_has_and_without_stored_groups():
    def one(output):
        return 1.0

    result = Eval("g", [{"input": 1, "metadata": {"site": "a"}}], lambda i: i, [one]).run()
    assert result.run_dir is None and result.grouped("site") == {"a": result.summary}
    assert result.grouped("other") == {"": result.summary}
    bare = EvalResult.model_validate(result.model_dump(exclude={"groups"}))
    with pytest.raises(KeyError, match="no summaries by 'site'"):
        bare.grouped("site")
