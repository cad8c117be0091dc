"""The trajectory list's filters mean what the run's counts mean (issue 36, point 6): an
episode that ended in an error, or whose score is an evaluator error, is an error and never
unscored; each filter takes only its own values (anything else is a 400). Through the real
viewer server, on the current index and on one from before the summary tables, and clicked
in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from view_builders import ALL, as_schema_1, csr_score, task, traj, write_run

from webtraj.evaluate.trajectory_scoring import episode_error_score
from webtraj.model import Score
from webtraj.view.server import Viewer

EV = "constraints:rule"
EXPECTED = {  # filter -> the task ids it lists
    (("error", "yes"),): {"cars-004", "cars-005"},
    (("error", "no"),): {"hotels-001", "hotels-002", "cars-003"},
    (("unscored", "1"),): {"cars-003"},
    (("success", "yes"),): {"hotels-001"},
    (("success", "no"),): {"hotels-002"},
    (("error", "no"), ("unscored", "1")): {"cars-003"},
}


def _run(root: Path) -> Path:
    crash = "browser crashed"
    return write_run(root / "mixed", [
        (traj(task(1), ["10", "stop"]), [csr_score([[], ALL, ALL])], None),
        (traj(task(2), ["10", "stop"]), [csr_score([[], ALL[:1], ALL[:1]])], None),
        (traj(task(3, site="cars"), ["10"]),
         [Score.unscored(EV, "judge could not decide: pool")], None),
        (traj(task(4, site="cars"), ["10"], error=crash), [episode_error_score(EV, crash)],
         None),
        (traj(task(5, site="cars"), ["10"]),
         [Score.unscored(EV, "evaluator failed: TimeoutError", error=True)], None),
    ])


def _listed(html: str) -> set[str]:
    return {tid.split("__")[0] for tid in re.findall(r'class="traj-link"[^>]*>([^<]+)<', html)}


@pytest.mark.parametrize("schema", ["current", "before summary tables"])
def test_filters_agree_with_the_counts_and_refuse_other_values(tmp_path, schema):
    root = tmp_path / "runs"
    run = _run(root)
    if schema != "current":
        as_schema_1(run / "index.sqlite")
    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        page = http.get("/run", params={"r": "mixed"})
        assert page.status_code == 200
        totals = " ".join(re.sub(r"<[^>]+>", " ", re.search(
            r'<p id="totals">(.*?)</p>', page.text).group(1)).split())
        assert "5 episodes · 2 errors · 2 scored · 1 unscored" in totals, totals
        for params, ids in EXPECTED.items():
            got = http.get("/run", params={"r": "mixed", **dict(params)})
            assert got.status_code == 200 and _listed(got.text) == ids, params
        for name, bad in (("unscored", "on"), ("unscored", "yes"), ("success", "bogus"),
                          ("error", "maybe"), ("desc", "true"), ("page", "x")):
            got = http.get("/run", params={"r": "mixed", name: bad})
            assert got.status_code == 400 and name in got.text, (name, bad)


@pytest.mark.asyncio(loop_scope="session")
async def test_unscored_and_error_filters_clicked(tmp_path, page):
    root = tmp_path / "runs"
    _run(root)
    with Viewer([root]) as v:
        await page.goto(v.url + "run?r=mixed")
        await page.check("input[name=unscored]")
        await page.click("#apply")
        rows = await page.locator("tr.traj-row").all_inner_texts()
        assert len(rows) == 1 and "cars-003" in rows[0] and "could not decide" in rows[0]
        await page.uncheck("input[name=unscored]")
        await page.select_option("select[name=error]", "yes")
        await page.click("#apply")
        rows = await page.locator("tr.traj-row").all_inner_texts()
        assert sorted(r.split()[0].split("__")[0] for r in rows) == ["cars-004", "cars-005"]
        assert any("error: evaluator failed: TimeoutError" in r for r in rows)
