import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from webtraj.store import RunStore

TOTAL = 30
HERE = Path(__file__).parent


def _writer(root: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    return subprocess.Popen([sys.executable, str(HERE / "crash_writer.py"), str(root),
                             str(TOTAL)], stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("kill_after", [1, 7, 15])
def test_sigkill_mid_write_then_resume(tmp_path, kill_after):
    root = tmp_path / "run"
    proc = _writer(root)
    finished = []
    for line in proc.stdout:
        finished.append(line.split()[1])
        if len(finished) == kill_after:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    with RunStore.open(root, write=True) as store:  # the next writer repairs the run
        present = {r.task_id for r in store.rows()}
        # Everything reported complete before the kill is there ...
        assert set(finished) <= present
        # ... and whatever is there is whole: it loads, and its artifacts are complete.
        for row in store.rows():
            traj = store.load_trajectory(row.trajectory_id)
            assert len(traj.steps) == 20
            folder = store.trajectory_dir(row.trajectory_id)
            assert (folder / "step-001.png").stat().st_size == 1_500_000
        folders = [p for p in (root / "trajectories").iterdir()]
        assert all(not p.name.startswith(".") for p in folders), "temporaries left visible"
        assert store.corrupt == []

    resume = _writer(root)
    out, _ = resume.communicate(timeout=120)
    assert resume.returncode == 0
    resumed = [line.split()[1] for line in out.splitlines()]
    assert not set(resumed) & present, "resume rewrote finished trajectories"
    with RunStore.open(root) as store:
        rows = list(store.rows())
        assert len(rows) == TOTAL
        assert len({r.trajectory_id for r in rows}) == TOTAL
        assert len(list((root / "trajectories").iterdir())) == TOTAL
