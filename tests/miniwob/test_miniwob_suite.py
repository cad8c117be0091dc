"""The MiniWoB++ suite's pieces without a browser: the served pages, seeds, the catalogue of
tasks that run in Chromium, and how `webtraj sites list` shows it."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from webtraj.model import InputError
from webtraj.suites.miniwob.assets import task_names
from webtraj.suites.miniwob.check import load_check
from webtraj.suites.miniwob.server import REWARD_PATH, SCRIPT_PATH, inject
from webtraj.suites.miniwob.tasks import check_names, parse_seeds


def test_task_pages_are_served_with_the_episode_script(miniwob_server):
    base = miniwob_server.base_url
    page = httpx.get(f"{base}/miniwob/click-button.html?seed=3").text
    # After the page's own scripts (its window.onload must exist when ours wraps it).
    assert page.index("window.onload") < page.index(SCRIPT_PATH)
    assert "#reward-display { display: none" in page
    assert httpx.get(f"{base}{SCRIPT_PATH}").status_code == 200
    assert httpx.get(f"{base}/core/core.js").status_code == 200
    assert httpx.get(f"{base}/miniwob/no-such-task.html").status_code == 404
    assert httpx.post(f"{base}{REWARD_PATH}?d=%7B%7D").status_code == 204


def test_inject_without_head_or_body():
    out = inject("<p>bare</p>")
    assert out.startswith("<style>") and out.endswith(f'<script src="{SCRIPT_PATH}"></script>')


def test_seeds_and_task_names():
    assert parse_seeds("0-3,7,2") == (0, 1, 2, 3, 7)
    for bad in ("3-1", "x", ""):
        with pytest.raises(InputError) as err:
            parse_seeds(bad)
        assert err.value.field == "seeds"
    with pytest.raises(InputError, match="unknown MiniWoB"):
        check_names(["click-buton"])
    assert len(task_names()) >= 100 and "click-button" in task_names()


def test_catalogue_matches_the_installed_package():
    check = load_check()
    assert check is not None
    assert tuple(t.name for t in check.tasks) == task_names()
    assert all(t.starts for t in check.running)
    assert all(t.why for t in check.failing)
    assert len(check.running) >= 100


def test_sites_list_shows_how_many_miniwob_tasks_run():
    from webtraj.cli.app import app

    check = load_check()
    result = CliRunner().invoke(app, ["sites", "list"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert f"{len(check.running)} of {len(check.tasks)} tasks run in Chromium" in result.output
    assert "pip install 'webtraj[miniwob]'" in result.output
    for t in check.failing:
        assert t.name in result.output


def test_a_page_that_never_reports_a_reward_is_listed_as_such():
    # miniwob 1.1.0's hover-shape computes a score but its `core.continuousReward(score)` is
    # commented out: only the core's time-out (-1) ends it. Read from the installed page.
    from webtraj.cli.app import app
    from webtraj.suites.miniwob.check import reward_possible

    assert reward_possible("click-button") and reward_possible("drag-box")
    no_reward = [n for n in task_names() if not reward_possible(n)]
    check = load_check()
    if check.miniwob_version == "1.1.0":
        assert no_reward == ["hover-shape"]
    assert [t.name for t in check.tasks if not t.reward_possible] == no_reward
    result = CliRunner().invoke(app, ["sites", "list"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    if no_reward:
        assert (f"runnable; no reward possible in miniwob {check.miniwob_version}"
                in result.output)
        assert ", ".join(no_reward) in result.output


def test_a_run_need_not_wait_for_the_server():
    """The server's port listens before its child starts serving (issue 42): a run goes on at
    once, and a request made meanwhile waits in the backlog and is answered."""
    from webtraj.suites.miniwob.server import MiniWoBServer

    with MiniWoBServer(wait=False) as server:
        page = httpx.get(f"{server.base_url}/miniwob/click-button.html?seed=1", timeout=120)
        assert page.status_code == 200 and SCRIPT_PATH in page.text
