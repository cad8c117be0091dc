"""A `webtraj run` killed with SIGKILL cannot remove its scratch folder (its episodes' steps
journal, downloads): the journal it leaves never holds a credential in clear, and the next run
removes the folder, since its owner is gone, while a live owner's folder stays."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import webtraj
from factories import wait_until
from one_page_site import serve_page
from webtraj.execute.scratch import SCRATCH_PREFIX, OwnedScratch
from webtraj.model import Action, Task

if not os.path.exists("/usr/bin/chromium"):
    pytest.skip("needs Debian Chromium", allow_module_level=True)

TOKEN = "tok-9c1f7e2a55d0b3"
PAGE = b"<!doctype html><title>App</title><h1>App</h1>" + b"<p>row</p>" * 200


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).parents[1]), str(Path(webtraj.__file__).parents[1])])}


def _tasks(path: Path, task: Task) -> Path:
    path.write_bytes(task.to_json_bytes(indent=False) + b"\n")
    return path


def _run(tasks: Path, out: Path, tmp: Path, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "webtraj.cli.app", "run", "--tasks", str(tasks), "--agent",
         "replay", "--no-eval", "--max-steps", "400", "--timeout", "600", "--out", str(out)],
        env=_env(tmp), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


@pytest.fixture
def tmp():
    """A temporary folder for the runs (TMPDIR), short enough for Chromium's socket paths."""
    folder = Path(tempfile.mkdtemp(prefix="wt-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # two real runs; tests/test_scratch.py is the short version
def test_killed_runs_scratch_is_redacted_then_removed_by_the_next_run(tmp_path, tmp):
    with serve_page(PAGE) as base:
        # An episode long enough to be killed mid-way, on a URL that carries a token.
        long_task = Task(task_id="long", intent="scroll",
                         start_url=f"{base}/app?access_token={TOKEN}",
                         reference_actions=(Action(kind="scroll", value="down"),) * 300)
        run = _run(_tasks(tmp_path / "long.jsonl", long_task), tmp_path / "run1", tmp)
        try:
            def journaled() -> list[Path]:
                return [p for p in tmp.glob(f"{SCRATCH_PREFIX}*/*/steps.journal")
                        if p.stat().st_size > 0]

            assert wait_until(lambda: journaled() or run.poll() is not None, 240), \
                "no step was journaled"
            assert run.poll() is None, run.stderr.read().decode()
            os.kill(run.pid, signal.SIGKILL)
        finally:
            if run.poll() is None:
                run.kill()
            run.wait()
        [killed] = [p for p in tmp.iterdir() if p.name.startswith(SCRATCH_PREFIX)]
        [journal] = journaled()
        assert b"/app?access_token=[REDACTED]" in journal.read_bytes()
        left = {p.relative_to(killed).as_posix(): p.read_bytes()
                for p in killed.rglob("*") if p.is_file()}
        assert [name for name, data in left.items() if TOKEN.encode() in data] == []

        with OwnedScratch(parent=tmp) as live:  # a live owner's folder is never removed
            quick = Task(task_id="quick", intent="stop", start_url=f"{base}/",
                         reference_actions=(Action(kind="stop", value="done"),))
            second = _run(_tasks(tmp_path / "quick.jsonl", quick), tmp_path / "run2", tmp)
            _, err = second.communicate(timeout=300)
            assert second.returncode == 0, err.decode()
            assert not killed.exists()
            assert [p for p in tmp.iterdir() if p.name.startswith(SCRATCH_PREFIX)] == [live]
