"""The run page's summary tables from the index's summary tables (schema 2) equal the same
tables computed from every stored score (the schema-1 queries), with newer scores replacing
older ones, error episodes left out and two judges disagreeing on one constraint; an index
written before the summary tables existed is migrated by the next writer and read meanwhile;
the run page shows judge agreement per constraint."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import httpx
from view_builders import ALL, alpha_items, as_schema_1, csr_score, task, traj, write_run

from webtraj.report.metrics import csr_evaluator
from webtraj.store import RunStore
from webtraj.store.listing import ListQuery
from webtraj.store.queries import IndexReader, total_of
from webtraj.store.summary_tables import SCHEMA_VERSION
from webtraj.view.server import Viewer


def _two_judge_run(root: Path) -> Path:
    """alpha's trajectories with `constraints:rule`, re-scored once (the newer score wins),
    and a `constraints:llm` judge that differs from rule on `pool` for hotels-001."""
    run = write_run(root, alpha_items(n_extra=4))
    with RunStore.open(run, write=True) as store:
        ids = sorted(store.index.trajectory_ids())
        store.add_scores([("hotels-002__heuristic__t0",
                           csr_score([[], ALL[:1], ALL[:1], ALL[:1]]))])
        llm = [(tid, csr_score([[], ALL[:1], ALL[:2], ALL[:2] if tid.startswith("hotels-001")
                                else ALL], evaluator="constraints:llm")) for tid in ids]
        store.add_scores(llm)
        # A trajectory re-run after it was scored, this time ending in an error: every table
        # leaves it out from then on (the index's trigger updates the current scores).
        again = traj(task(100, site="flights"), ["10", "stop"], error="endpoint down")
        store.add_trajectory(again, replace=True)
    return run


def _tables(root: Path) -> dict:
    with IndexReader.open(root) as index:
        names = index.evaluators()
        ev = csr_evaluator(names)
        cells = index.by_site_difficulty(ev)
        return {"summary": index.has_summary, "names": names, "cells": cells,
                "total": total_of(cells).model_copy(update={"group": ("all",)}),
                "totals_query": index.totals(ev),
                "constraints": index.by_constraint(ev),
                "curve": [(k, round(m, 9), n) for k, m, n in index.step_curve(ev)],
                "agreement": index.judge_agreement(names),
                "per_constraint": index.constraint_agreement(names)}


def _page(root: Path, query: ListQuery) -> tuple[list[str], int]:
    with IndexReader.open(root) as index:
        rows, total = index.trajectory_page("constraints:rule", query)
    return [r.trajectory_id for r in rows], total


def _as_schema_1(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    as_schema_1(dst / "index.sqlite")
    return dst


def test_summary_tables_equal_the_full_queries_and_old_indexes_migrate(tmp_path):
    run = _two_judge_run(tmp_path / "runs" / "two")
    fast = _tables(run)
    old = _as_schema_1(run, tmp_path / "old")
    slow = _tables(old)
    assert fast["summary"] and not slow["summary"]
    for key in ("names", "cells", "constraints", "curve", "agreement", "per_constraint"):
        assert fast[key] == slow[key], key
    assert fast["total"].n == fast["totals_query"].n == 9
    assert fast["total"].errors == 2
    assert abs(fast["total"].csr - fast["totals_query"].csr) < 1e-9
    assert fast["total"].sr == fast["totals_query"].sr
    # The newer rule score of hotels-002 replaced the older one in every table.
    assert fast["names"] == ["constraints:llm", "constraints:rule"]
    with IndexReader.open(run) as index:
        rule = {c.name: c for c in index.by_constraint("constraints:rule")}
    # Of 6 decided (cars-003 unscored, cars-004 and flights-100 errors): hotels-002
    # (re-scored) and the XSS trajectory do not meet pool.
    assert (rule["pool"].met, rule["pool"].not_met, rule["pool"].unknown) == (4, 2, 0)
    per = {(a.name): a for a in fast["per_constraint"]}
    assert (per["pool"].both, per["pool"].agree) == (6, 3)
    assert (per["location"].both, per["location"].agree) == (6, 6)
    # The next writer migrates the old index; the tables are then the same.
    with RunStore.open(old, write=True):
        pass
    conn = sqlite3.connect(old / "index.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    # Search: the trigram index finds what LIKE finds (case-insensitive substrings, quotes,
    # LIKE's own wildcards as text, queries too short for trigrams, filters on scores).
    for query in ("lisbon", "Casa Azul", "NUMBER 10", '"', "x=1", "%", "_", "ca", "cars-",
                  "onerror=\"window"):
        for extra in ({}, {"success": "no"}, {"site": "hotels"}):
            fast_page = _page(run, ListQuery(q=query, **extra))
            assert fast_page == _page(old, ListQuery(q=query, **extra)), (query, extra)
    assert _page(run, ListQuery(q="lisbon"))[1] == 8  # the XSS intent names no city
    assert _page(run, ListQuery(q="casa azul"))[0] == ["hotels-001__heuristic__t0"]
    migrated = _tables(old)
    assert migrated["summary"]
    for key in ("cells", "constraints", "curve", "agreement", "per_constraint"):
        assert migrated[key] == fast[key], key


def test_run_page_shows_agreement_per_constraint(tmp_path):
    _two_judge_run(tmp_path / "runs" / "two")
    with Viewer([tmp_path / "runs"]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/run", params={"r": "two"}).text
    table = page.split('id="constraint-agreement"')[1].split("</table>")[0]
    rows = {r.split("<code>")[1].split("</code>")[0]: r for r in table.split("<tr>")[2:]}
    assert set(rows) == set(ALL)
    cells = [c.split(">", 1)[1].split("<")[0] for c in rows["pool"].split("<td")[4:9]]
    assert cells == ["6", "3", "0.500", "0", "0"]


def test_a_write_that_bypassed_the_summary_is_never_read_and_is_healed(tmp_path):
    run = _two_judge_run(tmp_path / "runs" / "two")
    expected = _tables(run)
    conn = sqlite3.connect(run / "index.sqlite")
    conn.execute("DELETE FROM score_sets WHERE id = (SELECT MAX(id) FROM score_sets)")
    conn.commit()
    conn.close()
    stale = _tables(run)
    assert not stale["summary"]  # read with the full queries, never the stale totals
    assert stale["per_constraint"] != expected["per_constraint"]
    with RunStore.open(run, write=True):  # the next writer rebuilds them
        pass
    healed = _tables(run)
    assert healed["summary"]
    for key in ("cells", "constraints", "curve", "agreement", "per_constraint"):
        assert healed[key] == stale[key], key
