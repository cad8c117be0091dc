"""`webtraj curate`: stream a run's trajectories in chunks, curate each, and write the
dataset in trajectory-id order.

Chunks are pure functions of (run, ids, settings), so one process, local worker processes
(`curation_pool`) and Ray tasks give the same records; the driver writes chunk results in
chunk order (results that finish early wait in a bounded window), hence byte-identical
output. Only one window of chunks is ever in memory."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, ConfigDict

from webtraj.curate.instance import Instance
from webtraj.curate.pipeline import LLMRelabel, curate_trajectories
from webtraj.curate.settings import CurateSettings, curve_config, curve_evaluator
from webtraj.curate.split import TRAIN, VALIDATION, validation_tasks
from webtraj.curate.stats import CurationStats
from webtraj.curate.vision import trl_record
from webtraj.curate.writers import DatasetWriter, empty_columns, to_batch, to_vision_batch
from webtraj.execute.chunk_wire import ChunkOut, encode_chunk
from webtraj.execute.curation_job import CurateRun
from webtraj.model.errors import InputError
from webtraj.model.run import RunInfo
from webtraj.runtime.no_gc import no_gc
from webtraj.store.decisions import DecisionWriter
from webtraj.store.lock import RunLock
from webtraj.store.reader import (
    Loaded,
    RawChunk,
    load_chunk,
    missing_curves,
    parse_chunk,
    trajectory_items,
)

if TYPE_CHECKING:
    from webtraj.execute.curation_ray import RayCuration

class ChunkJob(BaseModel):
    """What every chunk worker of one curation gets (as JSON): the settings, and the stamp
    its decisions carry, so a worker writes each decision's stored form once."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    settings: CurateSettings
    dataset: str
    curated_at: float


_CLIENTS: dict[tuple[str, bool], Any] = {}


def _client(settings: CurateSettings):
    from webtraj.llm import LLMClient

    key = (settings.llm or "", settings.no_cache)
    if key not in _CLIENTS:
        _CLIENTS[key] = LLMClient.from_cli(settings.llm, no_cache=settings.no_cache)
    return _CLIENTS[key]


def _llm_relabel(settings: CurateSettings) -> LLMRelabel:
    """Model relabeling through this process's client for the settings' model (closed
    after each batch: every batch runs in an event loop of its own)."""
    from webtraj.curate.relabel_llm import llm_relabel_many

    async def relabel(items):
        client = _client(settings)  # made when a chunk first needs it
        try:
            return await llm_relabel_many(client, items)
        finally:
            await client.aclose()

    return relabel


def process_chunk(root: str, items: Sequence[tuple[str, str]], job_json: str) -> ChunkOut:
    """Curate one chunk read from the run's folder: items are (trajectory_id, split), in
    output order."""
    job = ChunkJob.model_validate_json(job_json)
    ids = [tid for tid, _ in items]
    # The chunk's trajectories are freed before the collector resumes (they are acyclic).
    with no_gc():
        out = curate_chunk(load_chunk(Path(root), ids, job.settings.evaluators()), items, job)
    return out


def process_raw_chunk(raw: RawChunk, items: Sequence[tuple[str, str]],
                      job_json: str) -> bytes:
    """The same, on a chunk the driver read (a Ray worker need not see the run's disk),
    answered in its wire form (bytes the driver decodes, nothing pickled or kept pinned in
    Ray's object store while the writer buffers rows)."""
    job = ChunkJob.model_validate_json(job_json)
    with no_gc():
        out = curate_chunk(parse_chunk(raw), items, job)
    return encode_chunk(out)


def curate_chunk(loaded: Iterable[Loaded], items: Sequence[tuple[str, str]],
                 job: ChunkJob) -> ChunkOut:
    """Curate a chunk (`curate.pipeline`) and put its results in their wire form: records
    as JSONL lines and Arrow rows per split, relabeled tasks, decisions and statistics."""
    settings = job.settings
    stats = CurationStats(judge=settings.judge, second_judge=settings.second_judge,
                          relabel=settings.relabel, seed=settings.seed, val_fraction=0.0,
                          prompt=settings.prompt)
    split_of = dict(items)
    out = ChunkOut()
    vision = settings.prompt.observation.image is not None
    images: dict[str, bytes] = {}
    jsonl: dict[str, list[bytes | memoryview]] = {s: [] for s in (TRAIN, VALIDATION)}
    columns = {s: empty_columns(vision) for s in (TRAIN, VALIDATION)}
    llm = _llm_relabel(settings) if settings.relabel == "llm" else None
    for c in curate_trajectories(loaded, settings, llm_relabel=llm):
        split = split_of[c.trajectory_id]
        out.steps_read += c.n_steps or 0
        out.decisions.append((c.trajectory_id, c.decision(
            dataset=job.dataset, curated_at=job.curated_at, split=split,
        ).model_dump_json(exclude_none=True)))
        stats.add(c, split)
        if (inst := c.instance) is not None:
            _append(jsonl[split], columns[split], inst, c.records,
                    images if vision else None)
            if inst.relabeled:
                out.tasks.append((inst.task.task_id,
                                  inst.task.to_json_bytes(indent=False) + b"\n"))
    out.jsonl = jsonl
    out.batches = {s: (to_vision_batch if vision else to_batch)(c) for s, c in columns.items()}
    out.images = list(images.items())
    out.stats = stats.model_dump(mode="json")
    return out


def _append(lines: list[bytes | memoryview], cols: dict[str, list[Any]], inst: Instance,
            records: list[dict[str, Any]], images: dict[str, bytes] | None) -> None:
    """The records as JSONL lines and columns; with `images` (a dataset of image records)
    in TRL's vision form, their image files collected into `images` once each."""
    for step, rec in zip(inst.steps, records, strict=True):
        if images is not None:
            rec, found = trl_record(rec["messages"])
            images.update(found)
            cols["images"].append([{"bytes": data, "path": name} for name, data in found])
        lines.append(orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE))
        cols["messages"].append(rec["messages"])
        cols["task_id"].append(inst.task.task_id)
        cols["source_task_id"].append(inst.source_task_id)
        cols["trajectory_id"].append(inst.trajectory_id)
        cols["step"].append(step.t)
        cols["kind"].append(step.kind.value)
        cols["relabeled"].append(inst.relabeled)
        cols["c_max"].append(inst.c_max)


def default_judge(info: RunInfo) -> str:
    """The judge the run's suite curates on: the sandbox oracle when the run can rebuild it
    (a sandbox with its site URLs), a suite's own reward (MiniWoB++), else the rule judge."""
    from webtraj.execute.suites import suite_of_run

    return suite_of_run(info).curation_judge(info)


def ensure_curves(root: Path, settings: CurateSettings, *, llm: str | None = None,
                  on_progress: Callable[[int, int], None] | None = None) -> int:
    """Score with `steps=all` the trajectories that have no per-step curve for a judge.
    Returns how many trajectories were scored (once per judge)."""
    from webtraj.evaluate.run_scoring import RunEnvironments, score_run
    from webtraj.store import RunStore

    done = 0
    for judge in (settings.judge, settings.second_judge):
        if not judge:
            continue
        missing = missing_curves(root, curve_evaluator(judge))
        if not missing:
            continue
        task_ids = sorted({task for _, task in missing})
        with RunStore.open(root, write=True, command="webtraj curate (scoring)") as store:
            envs = RunEnvironments(store.info, llm=llm, no_cache=settings.no_cache)
            config = [curve_config(judge)]
            for i in range(0, len(task_ids), 400):
                res = score_run(store, config, envs, task_id=task_ids[i:i + 400])
                done += res.trajectories
                if on_progress:
                    on_progress(done, len(missing))
    return done


@dataclass
class CurateResult:
    stats: CurationStats
    steps_read: int
    bytes_written: int
    # With Ray: how many chunks tasks read on the driver's node, and how many were shipped.
    ray: RayCuration | None = None


def curate_run(job: CurateRun, *, on_chunk: Callable[[int, int], None] | None = None,
               rescored: int = 0) -> CurateResult:
    """Curate the run into `job.out`. Its decisions are written into the run's index, so
    the run's lock is held throughout (RunLockedError while another command writes it)."""
    with RunLock(job.run, f"webtraj curate (dataset {job.out})"):
        return _curate_run(job, on_chunk=on_chunk, rescored=rescored)


def _curate_run(job: CurateRun, *, on_chunk: Callable[[int, int], None] | None,
                rescored: int) -> CurateResult:
    root = job.run
    if job.executor == "ray" and job.settings.prompt.observation.image is not None:
        # A Ray worker on another machine cannot read the run's screenshots.
        raise InputError("records with images (observation="
                         f"{job.settings.prompt.observation.value}) are curated with the "
                         "local executor; Ray workers do not get the run's screenshots",
                         field="executor")
    items = trajectory_items(root)
    validation = validation_tasks([task for _, task in items], job.val_fraction,
                                  job.settings.seed)
    split_items = [(tid, VALIDATION if task in validation else TRAIN) for tid, task in items]
    chunks = [split_items[i:i + job.chunk_size]
              for i in range(0, len(split_items), job.chunk_size)]
    stats = CurationStats(judge=job.settings.judge, second_judge=job.settings.second_judge,
                          relabel=job.settings.relabel, seed=job.settings.seed,
                          val_fraction=job.val_fraction, rescored_trajectories=rescored,
                          prompt=job.settings.prompt)
    n_tasks = len({task for _, task in items})
    stats.split_tasks = {VALIDATION: len(validation), TRAIN: n_tasks - len(validation)}
    del items, split_items  # the chunks hold what is left to do (at 150k, tens of MB less)
    # Decisions are written in one transaction on the run's index, committed with the
    # dataset.
    log = DecisionWriter(root)
    writer = DatasetWriter(job.out, vision=job.settings.prompt.observation.image is not None)
    steps_read = 0
    dataset = str(job.out.resolve())
    job_json = ChunkJob(settings=job.settings, dataset=dataset,
                        curated_at=time.time()).model_dump_json()

    def take(out: ChunkOut) -> None:
        nonlocal steps_read
        steps_read += out.steps_read
        log.add(dataset, out.decisions)
        stats.merge(CurationStats.model_validate(out.stats))
        for split in (TRAIN, VALIDATION):
            writer.add(split, out.jsonl[split], out.batches[split])
        for task_id, line in out.tasks:
            writer.add_task(task_id, line)
        if out.images:
            writer.add_images(out.images)

    placed = None
    try:
        workers = min(job.num_cpus or os.cpu_count() or 1, len(chunks))
        if job.executor == "ray":
            from webtraj.execute.curation_ray import run_ray

            placed = run_ray(str(root), chunks, job_json, take, on_chunk, job.num_cpus,
                             job.ray_address)
        elif workers > 1:
            from webtraj.execute.curation_pool import run_pool

            run_pool(str(root), chunks, job_json, workers, take, on_chunk)
        else:
            for i, chunk in enumerate(chunks):
                take(process_chunk(str(root), chunk, job_json))
                if on_chunk:
                    on_chunk(i + 1, len(chunks))
        writer.close(stats.to_json())
    except BaseException:
        writer.abort()
        log.abort()
        raise
    log.commit()
    return CurateResult(stats=stats, steps_read=steps_read, bytes_written=writer.bytes_written,
                        ray=placed)
