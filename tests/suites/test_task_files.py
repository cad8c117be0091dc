"""Task files carry what reproduces them (issue 26, point 5): `webtraj sites tasks` writes
each sandbox task's date and seed and `webtraj run --tasks` serves the sandbox as recorded; a
sandbox task without a date is named in a warning with the date it got; the run records the
site URLs of a file's own tasks, so WebArena-Verified's network checks can score them.
Real Chromium, the real sandbox sites and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re

import pytest
from typer.testing import CliRunner

from factories import SANDBOX_TODAY
from one_page_site import serve_page
from webtraj.model import Action, Task
from webtraj.store import RunStore

if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("Debian Chromium (/usr/bin/chromium) is not installed",
                allow_module_level=True)

SHOP_PAGE = b"<!doctype html><title>Shop</title><h1>Order placed</h1>"


@pytest.fixture
def shop():
    with serve_page(SHOP_PAGE) as base:
        yield base


def _shop_task(base: str) -> Task:
    """A task of the user's own site, checked by the request its last page load made."""
    return Task(task_id="shop.order", intent="Place the order", site="shop",
                start_url=base + "/", metadata={"task_type": "NAVIGATE"},
                reference_actions=(Action(kind="goto", value=base + "/thanks?order=7"),
                                   Action(kind="stop", value="")),
                evaluators=({"evaluator": "NetworkEventEvaluator", "last_event_only": True,
                             "expected": {"url": "__SHOP__/thanks", "http_method": "GET",
                                          "response_status": 200,
                                          "query_params": {"order": ["7"]}}},))


def test_sites_tasks_then_run_tasks_reproduces_the_sandbox(tmp_path, shop):
    from webtraj.cli.app import app

    listed = tmp_path / "listed.jsonl"
    result = CliRunner().invoke(app, ["sites", "tasks", "--suite", "booking", "--today",
                                      SANDBOX_TODAY, "--out", str(listed)])
    assert result.exit_code == 0, result.output
    lines = {json.loads(x)["task_id"]: json.loads(x) for x in listed.read_text().splitlines()}
    assert len(lines) == 120
    dated = lines["booking.hotels.01"]
    assert dated["metadata"]["sandbox"] == {"suite": "booking", "today": SANDBOX_TODAY,
                                            "seed": 0}
    undated = [lines["booking.cars.01"], lines["booking.cars.02"]]
    for task in undated:  # as a file written before dates were recorded
        del task["metadata"]["sandbox"]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join([json.dumps(dated), *map(json.dumps, undated),
                                _shop_task(shop).to_json_bytes(indent=False).decode()]) + "\n")

    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "--tasks", str(tasks), "--agent", "replay",
                                      "--task-ids", "booking.hotels.01,booking.cars.01,"
                                      "shop.order", "--timeout", "120", "--out", str(out)],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    flat = re.sub(r"\s+", " ", result.output)
    assert re.search(r"warning: 1 sandbox task\(s\) carry no sandbox date .*booking\.cars\.01"
                     rf".*served at {SANDBOX_TODAY}", flat), flat
    warning = flat.split("warning:")[1].split("episodes")[0]
    # Only the tasks that run are named: the dated one and the one not chosen are not.
    assert "booking.hotels.01" not in warning and "booking.cars.02" not in warning
    with RunStore.open(out) as store:
        info = store.info
        scores = {}
        for traj in store.iter_trajectories():
            assert traj.error is None, (traj.task.task_id, traj.error)
            scores[traj.task.task_id] = {s.evaluator: s for s in
                                         store.scores(traj.trajectory_id)}
    assert info.sandbox is not None and info.sandbox.today.isoformat() == SANDBOX_TODAY
    assert info.site_urls["shop"] == shop
    # The reference solutions score 1 at the date the tasks were made for.
    for tid in ("booking.hotels.01", "booking.cars.01"):
        oracle = scores[tid]["constraints:oracle"]
        assert oracle.value == 1.0, (tid, oracle)
    # The file's own site is mapped: the network check scores, it does not error.
    [network] = [s for name, s in scores["shop.order"].items()
                 if name.startswith("NetworkEventEvaluator")]
    assert not network.error and network.value == 1.0, network
