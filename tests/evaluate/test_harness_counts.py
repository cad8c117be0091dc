"""The Eval harness and the run it stores say the same numbers: each scorer's scored count and
mean in `EvalResult.summary` are what `runs show --json` counts from the index (the one home
of per-evaluator counts, store.queries), and its skipped cases are the index's unscored plus
errors (a case whose task failed is an error there, never a score)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from webtraj.evaluate.harness import Eval, action_correct, operation_match


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
