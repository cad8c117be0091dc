"""A recording is written under the run's one write lock (store.lock), like every writer: a
second `webtraj record` (or any writer) on the same run is refused before it starts, naming
the holder, and the recording scratch folder needs no lock of its own."""

from __future__ import annotations

import pytest

from webtraj.execute.recording_run import execute_recording
from webtraj.model.run import RunConfig, RunInfo
from webtraj.record.session import RecordSettings
from webtraj.store import RunStore
from webtraj.store.lock import RunLockedError


def test_a_second_recorder_on_a_run_being_written_is_refused(tmp_path):
    out = tmp_path / "demos"
    holder = RunStore.open_or_create(out, RunInfo(name="demos"), command="webtraj record",
                                     staged=True)
    with holder, pytest.raises(RunLockedError) as refused:
        # refused at the lock: no browser window is ever needed
        execute_recording(RunConfig(suite="booking", agent="human"), out, window=None,
                          settings=RecordSettings())
    assert "webtraj record" in str(refused.value) and "one writer per run" in str(refused.value)
