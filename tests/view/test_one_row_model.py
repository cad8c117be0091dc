"""One row model for a trajectory (issue 40): the index's rows, the viewer's page,
report.html's outcomes and `runs show`'s trajectories are all `store.rows.TrajectoryRow`,
read through `IndexReader`, and say the same about each trajectory; `runs show --json`
projects the row to the fields it has always written, in the same order."""

from __future__ import annotations

import json

from typer.testing import CliRunner
from view_builders import alpha_items, beta_items, csr_score, write_run

from webtraj.cli.app import app
from webtraj.report.metrics import csr_evaluator
from webtraj.report.outcomes import outcomes
from webtraj.report.run_summary import summarize
from webtraj.store import RunStore
from webtraj.store.listing import ListQuery
from webtraj.store.queries import IndexReader
from webtraj.store.rows import TrajectoryRow

IDENTITY = ("trajectory_id", "task_id", "site", "difficulty", "agent", "trial", "n_steps",
            "error")


def _run(tmp_path):
    run = write_run(tmp_path / "mixed", alpha_items() + beta_items())
    with RunStore.open(run, write=True) as store:
        # An episode that ended in an error, scored by an older version: no value anywhere.
        errored = next(r.trajectory_id for r in store.rows() if r.error)
        store.add_scores([(errored, csr_score([[]]))])
    return run, errored


def test_every_listing_is_the_one_row_model_and_they_agree(tmp_path):
    run, errored = _run(tmp_path)
    with RunStore.open(run) as store:
        summary = summarize(store)
        report_rows = outcomes(store)
        store_rows = list(store.rows())
    with IndexReader.open(run) as index:
        ev = csr_evaluator(index.evaluators())
        page, total = index.trajectory_page(ev, ListQuery())
        index_rows = index.trajectory_rows(scores=True)
    listings = {"runs show": summary.trajectories, "report": report_rows,
                "store": store_rows, "viewer page": page, "index": index_rows}
    for name, rows in listings.items():
        assert len(rows) == total == 7, name
        assert all(type(r) is TrajectoryRow for r in rows), name
    by_listing = {name: sorted(tuple(getattr(r, f) for f in IDENTITY) for r in rows)
                  for name, rows in listings.items()}
    assert len({tuple(v) for v in by_listing.values()}) == 1, by_listing
    # Current scores: the same in the summary, the report and the index; none for the
    # episode that ended in an error, whatever was stored for it.
    scores = {r.trajectory_id: r.scores for r in index_rows}
    assert {r.trajectory_id: r.scores for r in summary.trajectories} == scores
    assert {r.trajectory_id: r.scores for r in report_rows} == scores
    assert scores[errored] == {ev: None}
    # The headline value: the report's and the viewer page's agree, row by row.
    csr = {r.trajectory_id: r.csr for r in report_rows}
    assert {r.trajectory_id: r.csr for r in page} == csr
    assert csr[errored] is None and any(v is not None and 0 < v < 1 for v in csr.values())


def test_runs_show_json_writes_the_rows_fields_it_always_has(tmp_path):
    run, _ = _run(tmp_path)
    res = CliRunner().invoke(app, ["runs", "show", str(run), "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["trajectories"]
    assert len(rows) == 7
    for row in rows:  # the contract of `runs show --json`: these keys, in this order
        assert list(row) == ["trajectory_id", "task_id", "site", "difficulty", "agent",
                             "trial", "n_steps", "error", "scores", "usage", "judge_usage",
                             "wall_s"]
