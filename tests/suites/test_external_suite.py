"""Adding a suite is adding a package and a registry entry (issue 40, point 1): a suite that
lives outside webtraj (tests/suites/example_suite.py), registered as a user would register
it (an entry point of the group `webtraj.suites` in an installed distribution's metadata),
runs an episode through `webtraj run --suite NAME` in real Chromium on its loopback site and
is scored by its own evaluator."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from webtraj.store import RunStore

HERE = Path(__file__).resolve().parent


def _webtraj(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    dist = tmp_path / "hello_suite-1.0.dist-info"
    if not dist.exists():
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-suite\n"
                                       "Version: 1.0\n")
        (dist / "entry_points.txt").write_text(textwrap.dedent("""\
            [webtraj.suites]
            hello = example_suite:HelloSuite
            """))
    path = [str(tmp_path), str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "webtraj.cli.app", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Chromium")
def test_a_suite_from_outside_the_package_runs_through_webtraj_run(tmp_path):
    out = tmp_path / "run"
    done = _webtraj(["run", "--suite", "hello", "--agent", "replay", "--timeout", "60",
                     "--no-screenshots", "--out", str(out)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    with RunStore.open(out) as store:
        [traj] = list(store.iter_trajectories())
        [score] = store.scores(traj.trajectory_id)
        info = store.info
    assert traj.error is None, traj.error
    assert traj.answer == "Hello, suite"  # read from the page the suite served
    assert info.settings is not None and info.settings.suite == "hello"
    assert traj.task.start_url == info.site_urls["hello"] + "/"
    assert (score.evaluator, score.value) == ("hello-heading", 1.0)


def test_an_external_suite_is_listed_with_the_built_in_ones(tmp_path):
    done = _webtraj(["sites", "tasks", "--suite", "nope", "--out", str(tmp_path / "t.jsonl")],
                    tmp_path)
    assert done.returncode == 2
    assert "unknown suite 'nope'; available: booking, miniwob, webarena-verified, hello" in (
        done.stdout + done.stderr)
