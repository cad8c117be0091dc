"""A real two-node Ray cluster on one machine (`ray start --head` plus a second node with its
own temp dir, in process groups of their own): episodes run on both nodes, their artifacts come
back through Ray from scratch folders private to each node, and the per-task outcomes and the
curated bytes equal those of the local executor."""

from pathlib import Path

import pytest

from factories import SANDBOX_TODAY as TODAY
from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation import CurateRun, curate_run, ensure_curves
from webtraj.execute.run import RunConfig, execute_run
from webtraj.execute.scratch import SCRATCH_PREFIX
from webtraj.report.outcomes import outcomes
from webtraj.testing.ray_cluster import LocalRayCluster

ray = pytest.importorskip("ray")

TASKS = tuple(f"booking.{site}.{i:02d}" for site in ("hotels", "rentals", "flights", "transit",
                                                      "cars") for i in (2, 11))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with LocalRayCluster(nodes=2, root=tmp_path_factory.mktemp("ray")) as c:
        try:
            yield c
        finally:
            if ray.is_initialized():
                ray.shutdown()


def test_two_nodes_give_every_artifact_and_the_local_outcomes(tmp_path, cluster):
    per_executor, stores = {}, {}
    for executor in ("ray", "local"):
        config = RunConfig(suite="booking", agent="replay", today=TODAY, task_ids=TASKS,
                           workers=2, executor=executor,
                           ray_address=cluster.address if executor == "ray" else None)
        with execute_run(config, tmp_path / executor) as store:
            per_executor[executor] = {o.task_id: (o.csr, o.n_steps, o.error, o.scores)
                                      for o in outcomes(store)}
            for traj in store.iter_trajectories():
                folder = store.trajectory_dir(traj.trajectory_id)
                names = {p.name for p in folder.iterdir()}
                shots = {f"step-{i:03d}.png" for i in range(len(traj.steps) + 1)}
                assert shots <= names and "network.har" in names, (executor, names)
                assert (folder / "network.har").stat().st_size > 100
        stores[executor] = tmp_path / executor
    assert len(per_executor["ray"]) == len(TASKS)
    assert per_executor["ray"] == per_executor["local"]
    assert all(v[0] == 1.0 for v in per_executor["ray"].values())
    # The second node's workers wrote their episodes in their own scratch folder, which the
    # driver never read: every artifact above came back through Ray.
    assert list(cluster.scratch[1].glob(f"{SCRATCH_PREFIX}*"))

    # Curation on the same cluster writes the same bytes as the local executor.
    settings = CurateSettings(judge="oracle")
    ensure_curves(stores["ray"], settings)  # the tasks' own oracle scores have the curves
    outs = {}
    for executor in ("local", "ray"):
        job = CurateRun(run=stores["ray"], out=tmp_path / f"curated-{executor}",
                        settings=settings, executor=executor,
                        ray_address=cluster.address if executor == "ray" else None,
                        chunk_size=3)
        res = curate_run(job)
        if executor == "ray":  # chunks read by tasks on the driver's node, and shipped ones
            assert res.ray.read_on_node and res.ray.shipped, res.ray
        outs[executor] = {p.relative_to(job.out): p.read_bytes()
                          for p in sorted(job.out.rglob("*")) if p.is_file()}
    records = outs["local"][Path("train.jsonl")].count(b"\n") + outs["local"][
        Path("validation.jsonl")].count(b"\n")
    assert records >= len(TASKS)  # every replay trajectory gives its steps
    assert outs["local"] == outs["ray"]
