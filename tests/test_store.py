import orjson
import pytest

from factories import make_trajectory
from webtraj.model import InputError, RunInfo, Score, Trajectory
from webtraj.model.score import ConstraintCheck
from webtraj.report.run_summary import summarize
from webtraj.store import DuplicateTrajectoryError, RunExistsError, RunStore
from webtraj.store.queries import IndexReader


def test_add_load_query_and_resume(tmp_path):
    root = tmp_path / "run"
    with RunStore.create(root, RunInfo(name="r1", seed=3)) as store:
        for i in range(6):
            site = "hotels" if i % 2 else "flights"
            store.add_trajectory(make_trajectory(f"t{i}", site=site,
                                                 difficulty="hard" if i < 2 else "easy"),
                                 {"step-000.png": b"\x89PNG fake"})
        assert len(store) == 6
        assert {r.task_id for r in store.rows(site="hotels")} == {"t1", "t3", "t5"}
        assert {r.task_id for r in store.rows(site="flights", difficulty="hard")} == {"t0"}
        assert [t.task.task_id for t in store.iter_trajectories(site=["hotels"])] == [
            "t1", "t3", "t5"]
        with pytest.raises(DuplicateTrajectoryError):
            store.add_trajectory(make_trajectory("t0", site="flights"))
    with pytest.raises(RunExistsError):
        RunStore.create(root)
    with RunStore.open(root) as store:
        assert store.info.name == "r1" and store.info.seed == 3
        assert store.completed() == {(f"t{i}", 0) for i in range(6)}
        traj = store.load_trajectory(Trajectory.make_id("t2", "heuristic", 0))
        assert traj.steps[1].action.element_id == "1"
        assert (store.trajectory_dir(traj.trajectory_id) / "step-000.png").read_bytes() == (
            b"\x89PNG fake")


def test_scores_round_trip_and_aggregates(tmp_path):
    with RunStore.create(tmp_path / "run") as store:
        ids = []
        for i in range(4):
            t = make_trajectory(f"t{i}")
            store.add_trajectory(t)
            ids.append(t.trajectory_id)
        check = ConstraintCheck(name="location", ground_truth="Paris", agent_state="Paris",
                                matching=True)
        n = store.add_scores([
            (ids[0], Score(evaluator="csr", value=1.0, step_values=(0.0, 0.5, None, 1.0),
                           constraints=(check,))),
            (ids[1], Score(evaluator="csr", value=0.5, step_values=(0.5,),
                           constraints=(check,))),
            (ids[2], Score.unscored("csr", "judge reply could not be parsed")),
            (ids[3], Score.unscored("csr", "HAR missing", error=True)),
            (ids[0], Score(evaluator="network", value=0.0, details={"status": "failure"})),
        ])
        assert n == 5
        got = store.scores(ids[0], evaluator="csr")[0]
        assert got.step_values == (0.0, 0.5, None, 1.0)
        assert got.constraints[0].agent_state == "Paris"
        assert store.scores(ids[2])[0].reason == "judge reply could not be parsed"
        # A re-score is stored beside the old one; the newest wins in summaries.
        store.add_scores([(ids[0], Score(evaluator="network", value=1.0))])
        assert len(store.scores(ids[0], evaluator="network", latest_only=False)) == 2
        assert store.scores(ids[0], evaluator="network")[0].value == 1.0
        # The one step curve (store.queries): current scores, a finished episode's final
        # value carried forward; step 2 has no decided value and no point.
        with IndexReader.open(store.root) as index:
            curve = index.step_curve("csr")
            assert index.site_step_curves("csr") == {"hotels": curve}
        assert [(k, n) for k, _, n in curve] == [(0, 2), (1, 1), (3, 1)]
        assert [m for _, m, _ in curve] == pytest.approx([0.25, 0.5, 0.75])
        summary = summarize(store)
        csr = summary.evaluators["csr"]
        assert (csr.scored, csr.unscored, csr.errors) == (2, 1, 1)
        assert csr.mean == pytest.approx(0.75) and csr.sr == 0.5 and csr.csr == csr.mean
        assert summary.evaluators["network"].csr is None
        assert summary.evaluators["network"].sr == 1.0
        with pytest.raises(KeyError, match="no trajectory"):
            store.add_scores([("nope", Score(evaluator="x", value=1.0))])


def test_unscored_needs_reason_and_range():
    with pytest.raises(ValueError, match="needs a reason"):
        Score(evaluator="x")
    with pytest.raises(ValueError):
        Score(evaluator="x", value=1.5)


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d.pop("agent"), "agent"),
    (lambda d: d["steps"][1].__setitem__("index", "two"), "steps[1].index"),
    (lambda d: d["task"].__setitem__("constraints", [{"name": "x", "value": [1]}]),
     "task.constraints[0].value"),
])
def test_bad_trajectory_names_file_and_field(tmp_path, mutate, field):
    data = make_trajectory().model_dump(mode="json")
    mutate(data)
    path = tmp_path / "trajectory.json"
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(InputError) as info:
        Trajectory.load(path)
    assert info.value.file == str(path)
    assert info.value.field is not None and info.value.field.startswith(field)
    assert str(path) in str(info.value) and field in str(info.value)


def test_invalid_json_and_unknown_version(tmp_path):
    path = tmp_path / "trajectory.json"
    path.write_text('{"trajectory_id": "a", ')
    with pytest.raises(InputError, match="invalid JSON") as info:
        Trajectory.load(path)
    assert info.value.file == str(path)
    data = make_trajectory().model_dump(mode="json")
    data["schema_version"] = 99
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(InputError, match="unsupported schema_version 99") as info:
        Trajectory.load(path)
    assert info.value.field == "schema_version"


def test_corrupt_trajectory_reported_not_fatal(tmp_path):
    root = tmp_path / "run"
    with RunStore.create(root) as store:
        for i in range(3):
            store.add_trajectory(make_trajectory(f"t{i}"))
        bad = store.trajectory_dir(Trajectory.make_id("t1", "heuristic", 0)) / "trajectory.json"
    bad.write_text("{ not json")
    with RunStore.open(root) as store:
        errors = []
        got = [t.task.task_id for t in store.iter_trajectories(errors=errors)]
        assert got == ["t0", "t2"]
        assert len(errors) == 1 and "invalid JSON" in str(errors[0].error)
        summary = summarize(store)
        assert [t.task_id for t in summary.trajectories] == ["t0", "t2"]
        assert summary.corrupt[0].file == str(bad)


def test_reconcile_indexes_orphans_and_removes_temporaries(tmp_path):
    root = tmp_path / "run"
    with RunStore.create(root) as store:
        store.add_trajectory(make_trajectory("t0"))
        store.add_trajectory(make_trajectory("t1"))
    # Simulate a crash after the rename but before indexing, and a half-written temporary.
    import sqlite3

    conn = sqlite3.connect(root / "index.sqlite")
    conn.execute("DELETE FROM trajectories WHERE task_id = 't1'")
    conn.commit()
    conn.close()
    tmp = root / "trajectories" / ".tmp-t2-abc"
    tmp.mkdir()
    (tmp / "trajectory.json").write_text("{")
    before = _tree(root)
    with RunStore.open(root) as store:  # a reader lists what it finds and changes nothing
        assert store.completed() == {("t0", 0)}
        assert store.unindexed == [make_trajectory("t1").trajectory_id]
    assert _tree(root) == before and tmp.exists()
    with RunStore.open(root, write=True) as store:  # the lock holder repairs the run
        assert store.completed() == {("t0", 0), ("t1", 0)}
        assert not tmp.exists()


def _tree(root):
    """Every file under root with its content, to see that nothing changed (SQLite's
    shared-memory and WAL files are its own coordination, which readers take part in)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-shm", "-wal"))}


def test_completed_by_agent_and_failed_episodes(tmp_path):
    with RunStore.create(tmp_path / "run") as store:
        store.add_trajectory(make_trajectory("t0", agent="a"))
        store.add_trajectory(make_trajectory("t1", agent="b"))
        lost = Trajectory.model_validate({
            **make_trajectory("t2", agent="a").model_dump(), "termination": "error",
            "error": "worker process died"})
        store.add_trajectory(lost)
        assert store.completed() == {("t0", 0), ("t1", 0), ("t2", 0)}
        assert store.completed(agent="a") == {("t0", 0), ("t2", 0)}
        assert store.completed(agent="a", retry_failed=True) == {("t0", 0)}
