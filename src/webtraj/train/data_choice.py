"""The constraint-based evaluation paper's data choices (Table 2) as training folders of
`train.jsonl`/`validation.jsonl`:

- `partial`: the curated dataset as is (smallest best prefixes, valid stops, relabeling);
- `success`: the curated records of trajectories whose final CSR is 1 (the judge's SR);
- `all`: every step of every trajectory with an action, against the original task, the
  agent's own stop included, whatever the evaluation said.

The split is curate's (by task, same seed and fraction), so the three choices validate on the
same tasks."""

from __future__ import annotations

from pathlib import Path

import orjson

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.curate.chat_records import render
from webtraj.curate.instance import Instance, KeptStep, RecordKind
from webtraj.curate.prefix import EPS
from webtraj.curate.split import TRAIN, VALIDATION, validation_tasks
from webtraj.curate.vision import IMAGES, trl_record
from webtraj.model.action import ActionKind
from webtraj.model.base import FrozenModel
from webtraj.store import RunStore
from webtraj.store.atomic import write_bytes_atomic


class DataStats(FrozenModel):
    choice: str
    trajectories: int
    used_trajectories: int
    successful_trajectories: int
    records: dict[str, int]


def final_csr(store: RunStore, trajectory_id: str, evaluator: str) -> float | None:
    scores = store.scores(trajectory_id, evaluator=evaluator)
    return scores[0].value if scores else None


def _write(out: Path, lines: dict[str, list[bytes]]) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    for split in (TRAIN, VALIDATION):
        write_bytes_atomic(out / f"{split}.jsonl", b"".join(lines[split]))
    return {s: len(v) for s, v in lines.items()}


def success_only(run: Path, curated: Path, out: Path, judge: str) -> DataStats:
    import pyarrow.parquet as pq

    with RunStore.open(run) as store:
        ids = [r.trajectory_id for r in store.rows()]
        finals = {tid: final_csr(store, tid, f"constraints:{judge}") for tid in ids}
    good = {tid for tid, v in finals.items() if v is not None and v >= 1 - EPS}
    lines: dict[str, list[bytes]] = {TRAIN: [], VALIDATION: []}
    used = set()
    for split in (TRAIN, VALIDATION):
        jsonl = (curated / f"{split}.jsonl").read_bytes().splitlines(keepends=True)
        tids = pq.read_table(curated / f"{split}.parquet",
                             columns=["trajectory_id"]).column(0).to_pylist()
        for line, tid in zip(jsonl, tids, strict=True):
            if tid in good:
                lines[split].append(line)
                used.add(tid)
    _link_images(curated, out, [x for v in lines.values() for x in v])
    return DataStats(choice="success", trajectories=len(ids), used_trajectories=len(used),
                     successful_trajectories=len(good), records=_write(out, lines))


def _link_images(curated: Path, out: Path, lines: list[bytes]) -> None:
    """The image files the chosen records name, beside them (hard links where possible)."""
    import os
    import shutil

    names = {n for line in lines for n in orjson.loads(line).get(IMAGES, [])}
    if names:
        (out / IMAGES).mkdir(parents=True, exist_ok=True)
    for name in sorted(names):
        src, dst = curated / name, out / name
        if not dst.exists():
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)


def all_trajectories(run: Path, out: Path, judge: str, *, seed: int,
                     val_fraction: float, prompt: PromptOptions | None = None) -> DataStats:
    lines: dict[str, list[bytes]] = {TRAIN: [], VALIDATION: []}
    vision = prompt is not None and prompt.observation.image is not None
    used = n = good = 0
    with RunStore.open(run) as store:
        rows = list(store.rows())
        held_out = validation_tasks([r.task_id for r in rows], val_fraction, seed)
        for row in rows:
            n += 1
            final = final_csr(store, row.trajectory_id, f"constraints:{judge}")
            good += int(final is not None and final >= 1 - EPS)
            traj = store.load_trajectory(row.trajectory_id)
            kept = tuple(
                KeptStep(t=s.index, action=s.action, reasoning=s.reasoning,
                         kind=RecordKind.OWN_STOP if s.action.kind is ActionKind.STOP
                         else RecordKind.STEP)
                for s in traj.steps if s.action is not None)
            if not kept:
                continue
            used += 1
            inst = Instance(trajectory_id=traj.trajectory_id, source_task_id=traj.task.task_id,
                            task=traj.task, relabeled=False, c_max=final or 0.0,
                            t_best=len(traj.steps), final_csr=final, satisfied=(), steps=kept)
            split = VALIDATION if row.task_id in held_out else TRAIN
            for rec in render(traj, inst, prompt, store.trajectory_dir(traj.trajectory_id)):
                if vision:
                    rec, images = trl_record(rec["messages"])
                    for name, data in images:
                        (out / IMAGES).mkdir(parents=True, exist_ok=True)
                        if not (out / name).exists():
                            write_bytes_atomic(out / name, data)
                lines[split].append(orjson.dumps(rec) + b"\n")
    return DataStats(choice="all", trajectories=n, used_trajectories=used,
                     successful_trajectories=good, records=_write(out, lines))


def partial(run: Path, curated: Path, judge: str) -> DataStats:
    stats = orjson.loads((curated / "stats.json").read_bytes())
    with RunStore.open(run) as store:
        ids = [r.trajectory_id for r in store.rows()]
    counts = {s: len((curated / f"{s}.jsonl").read_bytes().splitlines())
              for s in (TRAIN, VALIDATION)}
    return DataStats(choice="partial", trajectories=len(ids),
                     used_trajectories=int(stats.get("with_usable_prefix", 0)),
                     successful_trajectories=int(stats.get("fully_successful", 0)),
                     records=counts)
