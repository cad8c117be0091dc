"""One writer per run, with real processes: while one process writes a run (a trajectory
half-written in its temporary folder), readers (`runs show`, `runs list`, `report`) change
nothing and a second writer (`eval --run`, another store) is refused, naming the first."""

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import webtraj
from factories import make_trajectory, wait_until
from webtraj.model import RunInfo
from webtraj.store import RunStore
from webtraj.store.lock import RunLockedError

HERE = Path(__file__).parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(HERE), str(Path(webtraj.__file__).parents[1])])}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webtraj.cli.app", *args], env=ENV,
                          capture_output=True, text=True, timeout=300)


def _temporaries(root: Path) -> list[Path]:
    return [p for p in (root / "trajectories").iterdir() if p.name.startswith(".tmp-")]


@pytest.fixture
def live_writer(tmp_path):
    """A writer process holding the run's lock, stopped in the middle of storing a
    trajectory (its first artifact written, the second waiting on a FIFO)."""
    root = tmp_path / "run"
    with RunStore.create(root, RunInfo(name="locked")) as store:
        store.add_trajectory(make_trajectory("t-done"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, str(HERE / "lock_writer.py"), str(root),
                             str(fifo)], env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        assert wait_until(lambda: any((t / "step-000.png").exists()
                                      for t in _temporaries(root)), timeout=120)
        yield root, fifo, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)


def test_readers_leave_a_live_writers_temporary_alone(live_writer):
    root, fifo, proc = live_writer
    [tmp] = _temporaries(root)
    shown = _cli("runs", "show", str(root), "--json")
    assert shown.returncode == 0, shown.stderr
    assert [t["trajectory_id"] for t in orjson.loads(shown.stdout)["trajectories"]] == [
        make_trajectory("t-done").trajectory_id]
    assert _cli("runs", "list", str(root.parent)).returncode == 0
    assert _cli("report", str(root)).returncode == 0
    with RunStore.open(root) as store:  # the Python API's reader: no repair either
        assert len(store) == 1
    assert tmp.is_dir() and (tmp / "step-000.png").read_bytes() == b"first artifact"

    with open(fifo, "wb") as f:  # let the writer finish its trajectory
        f.write(b"second artifact")
    assert proc.stdout.readline().strip() == "stored"
    assert proc.wait(timeout=60) == 0
    folder = root / "trajectories" / make_trajectory("t-live").trajectory_id
    assert (folder / "step-000.png").read_bytes() == b"first artifact"
    assert (folder / "step-001.png").read_bytes() == b"second artifact"
    assert _temporaries(root) == []


def test_a_second_writer_is_refused_naming_the_first(live_writer):
    root, fifo, proc = live_writer
    [tmp] = _temporaries(root)
    refused = _cli("eval", "--run", str(root), "--evaluator", "constraints:judge=rule")
    assert refused.returncode == 2
    message = "".join(refused.stderr.split())  # the console wraps lines anywhere
    assert f"process{proc.pid}" in message and "lock_writer.py" in message
    assert "onewriterperrun" in message and "Traceback" not in refused.stderr
    with pytest.raises(RunLockedError) as info:
        RunStore.open(root, write=True)
    assert info.value.holder.pid == proc.pid
    with pytest.raises(RunLockedError):
        RunStore.open_or_create(root)
    assert tmp.is_dir() and (tmp / "step-000.png").exists()  # nobody cleaned it

    with open(fifo, "wb") as f:
        f.write(b"second artifact")
    assert proc.wait(timeout=60) == 0
    # The lock went with its holder: the next writer gets it.
    with RunStore.open(root, write=True) as store:
        assert len(store) == 2


def test_the_lock_goes_with_a_killed_holder(live_writer):
    root, _, proc = live_writer
    proc.kill()
    proc.wait(timeout=60)
    with RunStore.open(root, write=True) as store:  # no stale lock; the dead temporary goes
        assert len(store) == 1
    assert _temporaries(root) == []
