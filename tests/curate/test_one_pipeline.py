"""Curation is decided in one place: `curate.pipeline.curate_trajectories`. Each trajectory of
the fixture run, curated by itself through that function, gives exactly what `webtraj curate`
wrote for it (one process or worker processes, rule or model relabeling): its Instance or
Drop, its decision in the run's index, its records, Parquet rows and relabeled task."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from curate.conftest import CONSTRAINTS
from webtraj.curate.instance import Drop, Instance
from webtraj.curate.pipeline import curate_trajectories
from webtraj.curate.relabel_llm import llm_relabel_many
from webtraj.curate.settings import CurateSettings
from webtraj.curate.split import TRAIN, VALIDATION, validation_tasks
from webtraj.execute.curation import CurateRun, curate_run
from webtraj.llm import LLMClient
from webtraj.store.decisions import decisions_of
from webtraj.store.reader import load_chunk, trajectory_items
from webtraj.testing import ScriptedLLMServer

NAMES = [c.name for c in CONSTRAINTS]
GOOD = """```json
{"task": "Search for hotels in Lisbon from March 5, 2026 to March 09, 2026.",
 "stop_reasoning": "The results show hotels in Lisbon for those dates, so I am done."}
```"""
COLUMNS = ("trajectory_id", "step", "kind", "task_id", "source_task_id", "relabeled", "c_max")


def _stored_decisions(run: Path, dataset: str) -> dict:
    with sqlite3.connect(run / "index.sqlite") as conn:
        return {tid: d for tid, _ in trajectory_items(run) for d in decisions_of(conn, tid)
                if d.dataset == dataset}


@pytest.mark.parametrize(("relabel", "num_cpus"), [("rule", 1), ("rule", 2), ("llm", 2)])
def test_each_trajectory_curated_alone_is_what_the_dataset_holds(small_run, tmp_path,
                                                                  relabel, num_cpus):
    out, seed, val_fraction = tmp_path / "out", 3, 0.34
    with ScriptedLLMServer(default=GOOD) as server:
        # One rewrite is unfaithful (drops adults), so one model relabeling fails.
        server.add_rule("I cannot help with that.", contains="- adults: 3\\n\\nCONSTRAINTS NOT")
        spec = f"base_url={server.base_url},model=scripted,max_retries=0"
        settings = CurateSettings(judge="rule", relabel=relabel, seed=seed, no_cache=True,
                                  llm=spec if relabel == "llm" else None)
        curate_run(CurateRun(run=small_run, out=out, settings=settings,
                             val_fraction=val_fraction, chunk_size=2, num_cpus=num_cpus))
        client = LLMClient.from_cli(spec, no_cache=True)

        async def model_relabel(items):
            try:
                return await llm_relabel_many(client, items)
            finally:
                await client.aclose()

        items = trajectory_items(small_run)
        curated = [c for tid, _ in items for c in curate_trajectories(
            load_chunk(small_run, [tid], settings.evaluators()), settings,
            llm_relabel=model_relabel if relabel == "llm" else None)]
        # The whole run as one batch: the model is asked once, for every partial prefix.
        batches = []

        async def counted(batch):
            batches.append(len(batch))
            return await model_relabel(batch)

        whole = curate_trajectories(load_chunk(small_run, [tid for tid, _ in items],
                                               settings.evaluators()), settings,
                                    llm_relabel=counted if relabel == "llm" else None)
    assert batches == ([2] if relabel == "llm" else [])
    assert [(c.outcome, c.records) for c in whole] == [(c.outcome, c.records) for c in curated]

    assert [c.trajectory_id for c in curated] == [tid for tid, _ in items]
    validation = validation_tasks([task for _, task in items], val_fraction, seed)
    split_of = {tid: VALIDATION if task in validation else TRAIN for tid, task in items}
    dataset = str(out.resolve())
    stored = _stored_decisions(small_run, dataset)
    assert len(stored) == len(items) == 6
    for c in curated:
        want = stored[c.trajectory_id]
        assert c.decision(dataset=dataset, curated_at=want.curated_at,
                          split=split_of[c.trajectory_id]) == want
        assert want.kept is isinstance(c.outcome, Instance)
    kept = [c for c in curated if c.instance is not None]
    for split in (TRAIN, VALIDATION):
        mine = [c for c in kept if split_of[c.trajectory_id] == split]
        lines = b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE)
                         for c in mine for r in c.records)
        assert (out / f"{split}.jsonl").read_bytes() == lines
        rows = pq.read_table(out / f"{split}.parquet", columns=list(COLUMNS)).to_pylist()
        assert rows == [{"trajectory_id": c.trajectory_id, "step": s.t, "kind": s.kind.value,
                         "task_id": c.instance.task.task_id,
                         "source_task_id": c.instance.source_task_id,
                         "relabeled": c.instance.relabeled, "c_max": c.instance.c_max}
                        for c in mine for s in c.instance.steps]
    relabeled = [c.instance.task for c in kept if c.instance.relabeled]
    assert (out / "tasks.jsonl").read_bytes() == b"".join(
        t.to_json_bytes(indent=False) + b"\n" for t in relabeled)
    stats = orjson.loads((out / "stats.json").read_bytes())
    drops = Counter(c.outcome.reason.value for c in curated if isinstance(c.outcome, Drop))
    assert stats["dropped"] == dict(drops)
    assert stats["with_usable_prefix"] == len(kept)
    # The fixture reaches every stage: two full instances, two partial ones (relabeled, or
    # with the model one relabeled and one refused), and drops before any prefix is chosen.
    if relabel == "llm":
        assert drops["relabel_failed"] == 1 and len(relabeled) == 1
        failed = next(c for c in curated if isinstance(c.outcome, Drop)
                      and c.outcome.reason.value == "relabel_failed")
        assert failed.selection is not None and stored[failed.trajectory_id].c_max == (
            failed.selection.best.c_max)
    else:
        assert len(relabeled) == 2
    assert {"no_constraints", "zero_csr"} <= set(drops)
    assert {split_of[c.trajectory_id] for c in kept} == {TRAIN, VALIDATION}
