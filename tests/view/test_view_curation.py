"""The curation decision on the trajectory page: curation records a typed decision per
trajectory in the run's index, and the viewer shows C_max, t', kept/dropped and why, and the
relabeled task, for a real replay run and for a run with partial and unscored trajectories."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.async_api import expect
from view_builders import alpha_items, write_run

from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation import CurateRun, curate_run
from webtraj.model import Trajectory
from webtraj.store.decisions import decisions_of
from webtraj.store.reader import connect_ro

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _curate(run, out, judge: str) -> None:
    curate_run(CurateRun(run=run, out=out, settings=CurateSettings(judge=judge),
                         val_fraction=0.0))


async def test_curation_decisions_on_trajectory_pages(viewer, page, runs_root, replay_run,
                                                      tmp_path):
    # A real run (the replay agent in Chromium, scored by the sandbox oracle).
    _curate(replay_run, tmp_path / "replay-data", "oracle")
    tid = sorted(p.name for p in (replay_run / "trajectories").iterdir())[0]
    traj = Trajectory.load(replay_run / "trajectories" / tid / "trajectory.json")
    await page.goto(viewer.url + "trajectory?" + urlencode({"r": "replay", "t": tid}))
    row = await page.locator("#curation tr.decision").inner_text()
    assert "kept" in row and "constraints" not in row.split("kept")[0]
    assert str(tmp_path / "replay-data") in row and "1.000" in row  # C_max = 1
    assert f"step {len(traj.steps) - 1}: own_stop" in row

    # Partial, unscored and unscoreable trajectories (run written through the store).
    run = write_run(runs_root / "to-curate", alpha_items())
    _curate(run, tmp_path / "alpha-data", "rule")
    with connect_ro(run) as conn:
        partial = decisions_of(conn, "hotels-002__heuristic__t0")
    assert len(partial) == 1 and partial[0].kept and partial[0].relabeled_task is not None

    await page.goto(viewer.url + "trajectory?" + urlencode(
        {"r": "to-curate", "t": "hotels-002__heuristic__t0"}))
    row = await page.locator("#curation tr.decision").inner_text()
    assert "kept (relabeled)" in row and "0.667" in row
    relabeled = await page.locator("#curation .relabeled").inner_text()
    assert "Lisbon" in relabeled and "pool" not in relabeled  # only C' = {location, adults}
    assert "step 2: relabeled_stop" in row
    await page.locator("#curation a[href='#step-2']").click()
    await expect(page.locator("body")).to_have_attribute("data-step", "2")

    await page.goto(viewer.url + "trajectory?" + urlencode(
        {"r": "to-curate", "t": "cars-004__heuristic__t0"}))
    assert "dropped: no_score" in await page.inner_text("#curation")
    await page.goto(viewer.url + "trajectory?" + urlencode(
        {"r": "to-curate", "t": "cars-003__heuristic__t0"}))
    assert "dropped: no_step_scores" in await page.inner_text("#curation")
    # An uncurated run shows no curation section.
    await page.goto(viewer.url + "trajectory?" + urlencode(
        {"r": "alpha", "t": "hotels-002__heuristic__t0"}))
    await page.wait_for_selector("#scores")
    assert await page.locator("#curation").count() == 0
