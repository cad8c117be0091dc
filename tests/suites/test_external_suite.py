"""Adding a suite is adding a package and a registry entry (issue 40, point 1): a suite that
lives outside webtraj (tests/suites/example_suite.py), registered as a user would register
it (an entry point of the group `webtraj.suites` in an installed distribution's metadata),
runs an episode through `webtraj run --suite NAME` in real Chromium on its loopback site and
is scored by its own evaluator."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from webtraj.model import Task
from webtraj.store import RunStore

HERE = Path(__file__).resolve().parent


def _webtraj(args: list[str], tmp_path: Path, suites: str | None = "hello = example_suite:ENTRY"
             ) -> subprocess.CompletedProcess[str]:
    """`python -m webtraj.cli.app ARGS` with the distribution `suites` publishes (its entry
    points of `webtraj.suites`) installed; None: none installed."""
    dist = tmp_path / "hello_suite-1.0.dist-info"
    if suites is not None and not dist.exists():
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-suite\n"
                                       "Version: 1.0\n")
        (dist / "entry_points.txt").write_text(f"[webtraj.suites]\n{suites}\n")
    path = [str(tmp_path), str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "webtraj.cli.app", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Chromium")
def test_a_suite_from_outside_the_package_runs_through_webtraj_run(tmp_path):
    out = tmp_path / "run"
    done = _webtraj(["run", "--suite", "hello", "--greeting", "Hi there,", "--agent", "replay",
                     "--timeout", "60", "--no-screenshots", "--out", str(out)], tmp_path)
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
    # Its own option, a flag made from its options model, reached the suite and the record.
    assert traj.task.intent == "Hi there, Answer with the page's heading."
    assert info.settings.suite_options.model_extra == {"greeting": "Hi there,"}


def test_an_external_suite_brings_its_options_flags_and_commands(tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    without = _webtraj(["run", "--help"], bare, suites=None)
    assert without.returncode == 0, without.stderr
    assert "--greeting" not in without.stdout and "--seeds" in without.stdout
    help_text = _webtraj(["run", "--help"], tmp_path)
    assert help_text.returncode == 0, help_text.stderr
    # After the built-in suites' options, with the help its options model gives it.
    assert help_text.stdout.index("--subset") < help_text.stdout.index("--greeting") < (
        help_text.stdout.index("--reset-cmd"))
    assert "Hello suite: words the task's intent starts with." in help_text.stdout
    listed = _webtraj(["sites", "tasks", "--suite", "hello", "--greeting", "Hey",
                       "--out", str(tmp_path / "t.jsonl")], tmp_path)
    assert listed.returncode == 0, listed.stderr
    [task] = [Task.model_validate_json(line)
              for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert task.intent.startswith("Hey Answer")
    # Another suite does not take it: refused, naming the option and the suite.
    refused = _webtraj(["sites", "tasks", "--suite", "miniwob", "--greeting", "Hey",
                        "--out", str(tmp_path / "m.jsonl")], tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "the miniwob suite takes no option 'greeting'" in refused.stderr
    # Its commands, added by the hook its entry names.
    exported = _webtraj(["export", "hello"], tmp_path)
    assert (exported.returncode, exported.stdout) == (0, "Hello, suite\n"), exported.stderr


def test_suites_share_an_option_only_when_its_types_agree(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    done = _webtraj(["sites", "tasks", "--help"], shared,
                    suites="twin = option_suites:SAME_TYPE")
    assert done.returncode == 0, done.stderr
    assert len(re.findall(r"^\W*--subset ", done.stdout, re.M)) == 1  # one option row
    done = _webtraj(["run", "--help"], tmp_path, suites="twin = option_suites:OTHER_TYPE")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert ("the suites 'miniwob' and 'twin' both take an option 'seeds', of different types"
            in " ".join(done.stderr.split())), done.stderr


def test_an_external_suite_is_listed_with_the_built_in_ones(tmp_path):
    done = _webtraj(["sites", "tasks", "--suite", "nope", "--out", str(tmp_path / "t.jsonl")],
                    tmp_path)
    assert done.returncode == 2
    assert "unknown suite 'nope'; available: booking, miniwob, webarena-verified, hello" in (
        done.stdout + done.stderr)
