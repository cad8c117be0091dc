"""Scratch folders outlive a process killed with SIGKILL: the steps journal in one never holds
a credential in clear, and the next scratch folder made removes those whose owner is gone,
never a live owner's (the whole path through a killed `webtraj run`:
tests/run/test_scratch_after_kill.py)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from webtraj.execute.scratch import SCRATCH_PREFIX, OwnedScratch

HERE = Path(__file__).parent
TOKEN = "tok-5b8e0c1d2f3a47"


def test_a_killed_owners_scratch_is_redacted_and_swept_a_live_one_kept(tmp_path):
    owner = subprocess.Popen([sys.executable, str(HERE / "scratch_owner.py"), str(tmp_path),
                              TOKEN], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                 [str(HERE), os.environ.get("PYTHONPATH", "")])})
    try:
        killed = Path(owner.stdout.readline().strip())
    finally:
        owner.kill()  # SIGKILL: the owner cannot clean up
        owner.wait()
    assert owner.returncode == -signal.SIGKILL
    journal = (killed / "episode" / "steps.journal").read_bytes()
    assert b"access_token=[REDACTED]" in journal and TOKEN.encode() not in journal

    with OwnedScratch(parent=tmp_path) as live, OwnedScratch(parent=tmp_path) as other:
        # Making `other` swept the killed owner's folder and kept the live one.
        assert not killed.exists()
        assert sorted(p for p in tmp_path.iterdir() if p.name.startswith(SCRATCH_PREFIX)) \
            == sorted([live, other])
    assert not live.exists() and not other.exists()  # each removed by its owner
