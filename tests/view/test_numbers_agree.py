"""One read path for a run's numbers: on a run with re-scored and retried trajectories on two
sites, report.html's per-site curves, its overall curve, the viewer's curve, `runs show
--json`, report.html's and the viewer's tables all say the same, and say what the stored
scores say (current scores only; an episode that ended in an error in no curve and no rate;
a finished episode's final value carried forward in every curve: docs/reference.md)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from view_builders import ALL, alpha_items, csr_score, task, traj, write_run

from webtraj.model import Score
from webtraj.report.metrics import csr_evaluator
from webtraj.store import RunStore
from webtraj.store.queries import IndexReader
from webtraj.view.server import Viewer


def _carried(curves: list[tuple[float | None, ...]]) -> list[tuple[int, float, int]]:
    """The step curve computed by hand: at step k, the mean over the episodes still running
    (a value at k) and those finished before k (their final value)."""
    out = []
    for k in range(max((len(c) for c in curves), default=0)):
        running = [c[k] for c in curves if len(c) > k and c[k] is not None]
        if not running:
            continue
        carried = [c[-1] for c in curves if len(c) - 1 < k and c[-1] is not None]
        out.append((k, (sum(running) + sum(carried)) / (len(running) + len(carried)),
                    len(running)))
    return out


def _expected(run: Path) -> dict:
    """What the stored scores say, read one trajectory at a time through the store."""
    with IndexReader.open(run) as index:
        ev = csr_evaluator(index.evaluators())
    by_site: dict[str, list[tuple[float | None, ...]]] = {}
    values, errors = [], 0
    with RunStore.open(run) as store:
        for row in store.rows():
            scores = store.scores(row.trajectory_id, evaluator=ev)
            if row.error:
                errors += bool(scores)
                continue
            if not scores:
                continue
            if scores[0].value is not None:
                values.append(scores[0].value)
            if scores[0].step_values:
                by_site.setdefault(row.site or "-", []).append(scores[0].step_values)
    every = [c for curves in by_site.values() for c in curves]
    return {"ev": ev, "curve": _carried(every),
            "sites": {s: _carried(c) for s, c in sorted(by_site.items())},
            "scored": len(values), "errors": errors,
            "sr": sum(v >= 1.0 for v in values) / len(values),
            "csr": sum(values) / len(values)}


def _plot_points(html: str) -> list[tuple[int, float, int]]:
    """The overall step plot's points, from each point's title."""
    svg = re.search(r'<svg class="plot".*?</svg>', html, re.S)
    assert svg is not None
    return [(int(s), float(v), int(n)) for s, v, n in re.findall(
        r"<title>step (\d+): ([0-9.]+), (\d+) episodes still running</title>", svg.group(0))]


def _site_curves(html: str) -> dict[str, tuple[list[float], str, str]]:
    """report.html's per-site curves: the sparkline's values (y = 36 - 32 v), first, last."""
    section = html.split("<h2>Mean CSR by step and site</h2>")[1].split("</table>")[0]
    out = {}
    for site, points, first, last in re.findall(
            r'<tr><td>([^<]*)</td><td><svg class="spark"[^>]*><polyline points="([^"]*)"/>'
            r'.*?</svg></td><td class="num">\d+</td><td class="num">([^<]*)</td>'
            r'<td class="num">([^<]*)</td></tr>', section, re.S):
        ys = [float(p.split(",")[1]) for p in points.split()]
        out[site] = ([(36 - y) / 32 for y in ys], first, last)
    return out


def _metrics_table(html: str) -> str:
    table = re.search(r'<table class="metrics">.*?</table>', html, re.S)
    assert table is not None
    return table.group(0)


def _cli(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "webtraj.cli.app", *args],
                          capture_output=True, text=True, check=True).stdout


def _assert_numbers_agree(runs: Path, name: str) -> dict:
    run = runs / name
    want = _expected(run)
    ev = want["ev"]
    assert len(want["sites"]) >= 2
    # The store's one step-curve definition says what the scores say, per site and overall.
    with IndexReader.open(run) as index:
        got = index.step_curve(ev)
        sites = index.site_step_curves(ev)
    assert [(k, n) for k, _, n in got] == [(k, n) for k, _, n in want["curve"]]
    assert [m for _, m, _ in got] == pytest.approx([m for _, m, _ in want["curve"]])
    assert set(sites) == set(want["sites"])
    for site, curve in want["sites"].items():
        assert [m for _, m, _ in sites[site]] == pytest.approx([m for _, m, _ in curve]), site
    # report.html (as `webtraj report` writes it): per-site curves and the overall plot.
    _cli("report", str(run))
    report = (run / "report.html").read_text()
    drawn = _site_curves(report)
    assert set(drawn) == set(want["sites"])
    for site, curve in want["sites"].items():
        values, first, last = drawn[site]
        assert values == pytest.approx([m for _, m, _ in curve], abs=0.002), site
        assert (first, last) == (f"{curve[0][1]:.3f}", f"{curve[-1][1]:.3f}"), site
    plotted = _plot_points(report)
    assert [(k, n) for k, _, n in plotted] == [(k, n) for k, _, n in want["curve"]]
    assert [v for _, v, _ in plotted] == pytest.approx([m for _, m, _ in want["curve"]],
                                                       abs=0.0006)
    # `runs show --json`: the headline row and the evaluator's counts.
    show = json.loads(_cli("runs", "show", str(run), "--json"))
    [row] = [r for r in show["metrics"]["rows"] if r["name"] == ev]
    metric = {m["key"]: m for m in row["metrics"]}
    assert (row["scored"], row["errors"]) == (want["scored"], want["errors"])
    assert metric["sr"]["value"] == pytest.approx(want["sr"])
    assert metric["csr"]["value"] == pytest.approx(want["csr"])
    counts = show["evaluators"][ev]
    assert (counts["scored"], counts["errors"]) == (want["scored"], want["errors"])
    assert (counts["sr"], counts["csr"]) == pytest.approx((want["sr"], want["csr"]))
    # The viewer's run page: the same plot, the same metrics table, the same totals.
    with Viewer([runs]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/run", params={"r": name}).text
    assert re.search(r'<svg class="plot".*?</svg>', page, re.S).group(0) == re.search(
        r'<svg class="plot".*?</svg>', report, re.S).group(0)
    assert _metrics_table(page) == _metrics_table(report)
    totals = re.search(r'<p id="totals">.*?</p>', page, re.S).group(0)
    assert f"SR <b>{want['sr']:.3f}</b>" in totals
    assert f"<b>{want['csr']:.3f}</b> <span" in totals
    assert f"{want['scored']} scored" in totals
    # report.html's table by site: its "all" row.
    all_row = re.search(r'<tr><td>all</td><td></td><td class="num">\d+</td>'
                        r'<td class="num">(\d+)</td><td class="num">([0-9.]+)<span',
                        report).groups()
    assert (int(all_row[0]), all_row[1]) == (want["scored"], f"{want['sr']:.3f}")
    return want


def test_numbers_agree_on_a_rescored_and_retried_run(tmp_path):
    """Two sites; hotels-002 re-scored with a longer curve; hotels-001 retried after it was
    scored, ending in an error this time; cars-003 retried and scored anew (a shorter
    episode); cars-007 scored by another evaluator only. Today's main drew report.html's
    per-site curves from every score set without carrying finished episodes forward, counted
    the retried error episode in the overall curve, and filled report.html's table by site
    with another evaluator's value where the headline judge had none."""
    runs = tmp_path / "runs"
    run = write_run(runs / "mixed", alpha_items(n_extra=4))
    with RunStore.open(run, write=True) as store:
        store.add_scores([("hotels-002__heuristic__t0",
                           csr_score([[], ALL[:1], ALL[:1], ALL[:2], ALL[:2], ALL]))])
        store.add_trajectory(traj(task(1), ["10", "stop"], error="endpoint down"),
                             replace=True)
        again = traj(task(3, site="cars"), ["10", "stop"])
        store.add_trajectory(again, replace=True)
        store.add_scores([(again.trajectory_id, csr_score([ALL[:2], ALL]))])
        # A trajectory the headline judge never scored: no headline value in any table
        # (report.html's table by site once took another evaluator's value for it).
        other = traj(task(7, site="cars"), ["10", "stop"])
        store.add_trajectory(other)
        store.add_scores([(other.trajectory_id, Score(evaluator="webvoyager", value=0.0))])
    want = _assert_numbers_agree(runs, "mixed")
    # Episodes of one site finish at different steps (so carrying forward matters), and the
    # retried episode's error is counted apart.
    hotels = want["sites"]["hotels"]
    assert hotels[-1][2] < hotels[0][2]
    assert want["errors"] == 1  # hotels-001, retried into an error


@pytest.mark.slow
def test_numbers_agree_on_a_real_run_rescored_by_eval(tmp_path):
    """A real run through the CLI (heuristic agent, sandbox, two sites, two trials, two
    workers), re-scored per step with `eval --run`, one episode retried into an error."""
    runs = tmp_path / "runs"
    out = runs / "real"
    subprocess.run([sys.executable, "-m", "webtraj.cli.app", "run", "--suite", "booking",
                    "--task-ids", "booking.hotels.01,booking.cars.03", "--agent", "heuristic",
                    "--workers", "2", "--trials", "2", "--out", str(out)],
                   capture_output=True, text=True, check=True)
    for site in ("hotels", "cars"):
        _cli("eval", "--run", str(out), "--evaluator", "constraints:judge=oracle,steps=all",
             "--site", site)
    with RunStore.open(out, write=True) as store:
        first = store.load_trajectory(sorted(store.index.trajectory_ids())[0])
        store.add_trajectory(first.model_copy(update={"error": "endpoint down"}),
                             replace=True)
    want = _assert_numbers_agree(runs, "real")
    assert want["errors"] == 1 and want["scored"] == 3
