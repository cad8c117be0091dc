"""webtraj's own facts about an episode are typed trajectory fields; files written before
they were (episode records and model usage as `metadata` keys) still load into them."""

from __future__ import annotations

import orjson

from factories import make_trajectory
from webtraj.model import Trajectory
from webtraj.store import RunStore
from webtraj.store.files import TrajectoryFiles
from webtraj.view.network import read_network

# Episode records as trajectory schema version 4 wrote them: `metadata` keys of plain JSON.
OLD_RECORDS = {
    "blocked_requests": [{"url": "stun:stun.example.org:3478", "method": "",
                          "resource_type": "webrtc", "reason": "webrtc", "time": 1.0}],
    "refused_tunnels": [{"url": "https://evil.example/", "method": "CONNECT",
                         "resource_type": "", "reason": "network", "time": 2.0}],
    "dialogs": [{"kind": "confirm", "message": "Leave?", "url": "http://127.0.0.1:8001/",
                 "accepted": True, "time": 1.5, "refused": False}],
    "downloads": [{"url": "http://127.0.0.1:8001/r.csv", "suggested_filename": "r.csv",
                   "file": "r.csv", "bytes": 12, "sha256": "ab" * 32, "time": 2.5}],
    "recorder": {"observations": 4, "idle_ms": 300, "notes": ["an observation failed: x"]},
}


def _old_file(**metadata) -> dict:
    data = make_trajectory().model_dump(mode="json", exclude_none=True)
    for field in ("blocked_requests", "refused_tunnels", "dialogs", "downloads"):
        data.pop(field, None)
    return {**data, "schema_version": 4, "metadata": {"source": "kept", **metadata}}


def test_old_trajectory_with_metadata_records_loads_into_typed_fields(tmp_path):
    root = tmp_path / "run"
    with RunStore.create(root) as store:
        store.add_trajectory(make_trajectory())
        tid = make_trajectory().trajectory_id
        path = store.trajectory_dir(tid) / "trajectory.json"
        path.write_bytes(orjson.dumps(_old_file(**OLD_RECORDS)))
        traj = store.load_trajectory(tid)
    assert [b.reason for b in traj.blocked_requests] == ["webrtc"]
    assert traj.refused_tunnels[0].method == "CONNECT"
    assert traj.dialogs[0].kind == "confirm" and traj.dialogs[0].accepted
    assert traj.downloads[0].bytes == 12 and traj.downloads[0].file == "r.csv"
    assert traj.recording is not None and traj.recording.observations == 4
    assert traj.recording.notes == ("an observation failed: x",)
    # What is not webtraj's own record stays in metadata.
    assert traj.metadata == {"source": "kept"}
    # The viewer's network list reads the typed fields: blocked rows follow the HAR's.
    net = read_network(traj, TrajectoryFiles(root, tid))
    assert [(r.url, r.blocked) for r in net.requests] == [
        ("stun:stun.example.org:3478", "webrtc"), ("https://evil.example/", "network")]
    # Written again, the records are fields of the current version, not metadata keys.
    again = orjson.loads(traj.to_json_bytes())
    assert again["schema_version"] == Trajectory.model_fields["schema_version"].default
    assert again["dialogs"][0]["message"] == "Leave?" and "dialogs" not in again["metadata"]
    assert Trajectory.model_validate(again) == traj


def test_current_version_keeps_a_users_metadata_key():
    """Only files older than the typed fields have their keys moved: a current trajectory's
    metadata is the user's own, whatever its keys."""
    data = make_trajectory().model_dump(mode="json")
    data["metadata"] = {"dialogs": "my own note"}
    traj = Trajectory.model_validate(data)
    assert traj.metadata == {"dialogs": "my own note"} and traj.dialogs == ()


def test_old_trajectory_llm_usage_loads_into_usage(tmp_path):
    """Version 4 kept the agent's usage as `metadata.llm_usage` in the run-usage form (with a
    `total`); it loads as the typed per-model `usage` the run totals and reports read."""
    from webtraj.report.usage import trajectory_usage

    llm_usage = {"total": {"calls": 3, "prompt_tokens": 30, "completion_tokens": 6,
                           "total_tokens": 36},
                 "models": {"m1": {"calls": 2, "prompt_tokens": 20, "completion_tokens": 4},
                            "m2": {"calls": 1, "prompt_tokens": 10, "completion_tokens": 2,
                                   "cost_usd": 0.5}}}
    path = tmp_path / "trajectory.json"
    path.write_bytes(orjson.dumps(_old_file(llm_usage=llm_usage)))
    traj = Trajectory.load(path)
    assert traj.usage is not None and traj.usage.models["m1"].calls == 2
    assert traj.usage.models["m2"].cost_usd == 0.5 and traj.metadata == {"source": "kept"}
    total = trajectory_usage(traj.usage)
    assert (total.calls, total.prompt_tokens, total.cost_usd) == (3, 30, 0.5)

