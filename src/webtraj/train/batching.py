"""Token-budget batching for `webtraj train`.

Every optimizer step takes `batch_size` records (the constraint-based evaluation paper: 16) from
the shuffled epoch order,
whatever their lengths, so the step averages the loss over the same records as batch-1
accumulation. The step's records are dealt to the processes (equal counts, longest first in
snake order so their token totals are close) and, on each process, filled into micro-batches
of at most `tokens_per_batch` tokens:

- packed (padding-free): the records of a micro-batch are one row, positions restart at each
  record and attention is block-diagonal (flash-attention varlen kernels from the sequence
  starts; sdpa, eager and flex attention from the mask transformers builds from the
  restarting positions); the budget counts the records' tokens;
- padded: records sorted by length, padded to the longest of their micro-batch; the budget
  counts padded tokens (records x longest).

The loss of each micro-batch is its answer tokens' summed loss divided by the answer tokens of
the whole step on all processes, so the step's gradient is the batch-1 accumulation's.
Every process runs the same number of micro-batches per step (the collectives of DDP and of
the trainer's metrics must pair up): a process with fewer splits its largest micro-batch, and
one with too few records runs a few tokens of a record with no loss on them (`filler`)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, Sampler

# Tokens of a filler micro-batch (no loss on them; only keeps the processes in step).
FILLER_TOKENS = 8
CPU_TOKENS_PER_BATCH = 8_192
# Activation bytes per token and per (layer x hidden unit), and per vocabulary entry (logits
# and their gradient), in the compute dtype, without gradient checkpointing. Fitted to the
# peak memory of the bare length-grouped loop measured on an H200 (Llama 0.73B: 2.9 MB/token, 7.0B:
# 12 MB/token, bf16, sdpa); with checkpointing a layer keeps only its input (2) and one layer
# is recomputed at a time.
ACT_PER_LAYER_UNIT = 48
ACT_PER_LAYER_UNIT_CHECKPOINTED = 2
ACT_PER_VOCAB = 6
MEMORY_SHARE = 0.85
RESERVE_BYTES = 2 * 2**30


@dataclass(frozen=True)
class Slot:
    """One record in a micro-batch; `filler` rows carry no loss."""

    index: int
    micro: int
    filler: bool = False


def fill(order: Sequence[int], lengths: Sequence[int], budget: int, packed: bool
         ) -> list[list[int]]:
    """Records (longest first) into micro-batches of at most `budget` tokens: first-fit when
    packed, consecutive runs when padded (the first record of a run is its longest). A record
    longer than the budget gets a micro-batch of its own."""
    ranked = sorted(order, key=lambda i: -lengths[i])
    bins: list[list[int]] = []
    if packed:
        room: list[int] = []
        for i in ranked:
            for b, free in enumerate(room):
                if lengths[i] <= free:
                    bins[b].append(i)
                    room[b] -= lengths[i]
                    break
            else:
                bins.append([i])
                room.append(budget - lengths[i])
        return bins
    for i in ranked:
        if bins and lengths[bins[-1][0]] * (len(bins[-1]) + 1) <= budget:
            bins[-1].append(i)
        else:
            bins.append([i])
    return bins


def plan_step(records: Sequence[int], lengths: Sequence[int], world: int, budget: int,
              packed: bool) -> list[list[list[int]]]:
    """One optimizer step's records -> for each process, its micro-batches (same count on
    every process; an empty list is a filler micro-batch)."""
    ranked = sorted(records, key=lambda i: -lengths[i])
    shares: list[list[int]] = [[] for _ in range(world)]
    for n, i in enumerate(ranked):
        turn, pos = divmod(n, world)
        shares[pos if turn % 2 == 0 else world - 1 - pos].append(i)
    plans = [fill(share, lengths, budget, packed) for share in shares]
    k = max(len(p) for p in plans)
    for p in plans:
        while len(p) < k:
            splittable = [b for b in p if len(b) > 1]
            if not splittable:
                p.append([])
                continue
            big = max(splittable, key=lambda b: sum(lengths[i] for i in b))
            p.remove(big)
            half = len(big) // 2
            p += [big[:half], big[half:]]
    return plans


class StepSampler(Sampler[list[Slot]]):
    """Yields, per optimizer step, this process's slots (records tagged with their
    micro-batch). The epoch order is a seeded permutation, the same on every process."""

    def __init__(self, lengths: Sequence[int], *, batch_size: int, budget: int, packed: bool,
                 world: int, rank: int, seed: int) -> None:
        self.lengths, self.batch_size, self.budget = list(lengths), batch_size, budget
        self.packed, self.world, self.rank, self.seed = packed, world, rank, seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return math.ceil(len(self.lengths) / self.batch_size)

    def steps(self) -> Iterator[list[list[list[int]]]]:
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        order = torch.randperm(len(self.lengths), generator=g).tolist()
        for start in range(0, len(order), self.batch_size):
            yield plan_step(order[start:start + self.batch_size], self.lengths, self.world,
                            self.budget, self.packed)

    def __iter__(self) -> Iterator[list[Slot]]:
        for plans in self.steps():
            mine = plans[self.rank]
            shortest = min((i for p in plans for b in p for i in b),
                           key=lambda i: self.lengths[i])
            yield [Slot(i, m) for m, b in enumerate(mine) for i in b] + [
                Slot(shortest, m, filler=True) for m, b in enumerate(mine) if not b]


class SlotRows(Dataset):
    """The tokenized rows (`input_ids`, `labels`), read by slot."""

    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, slot: Slot) -> dict[str, Any]:
        row = self.rows[slot.index]
        ids, labels = list(row["input_ids"]), list(row["labels"])
        if slot.filler:
            ids, labels = ids[:FILLER_TOKENS], [-100] * min(len(ids), FILLER_TOKENS)
        return {"input_ids": ids, "labels": labels, "micro": slot.micro}


class StepCollator:
    """Slots of one step -> {"micro_batches": [batch, ...]}, each batch collated by TRL's
    DataCollatorForLanguageModeling (padding-free when packed)."""

    def __init__(self, pad_token_id: int, packed: bool) -> None:
        from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

        self.collate = DataCollatorForLanguageModeling(pad_token_id=pad_token_id,
                                                       padding_free=packed)

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        groups: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            groups.setdefault(r["micro"], []).append(
                {"input_ids": r["input_ids"], "labels": r["labels"]})
        return {"micro_batches": [self.collate(groups[m]) for m in sorted(groups)]}


class StepLoader(DataLoader):
    """A DataLoader whose epoch reaches the step sampler (the trainer calls set_epoch)."""

    def set_epoch(self, epoch: int) -> None:
        self.batch_sampler.set_epoch(epoch)


def step_loader(rows: Any, sampler: StepSampler, pad_token_id: int) -> StepLoader:
    return StepLoader(SlotRows(rows), batch_sampler=sampler,
                      collate_fn=StepCollator(pad_token_id, sampler.packed), num_workers=0)


class VisionSlotRows(Dataset):
    """Raw vision rows (prompt, completion, images), read by slot."""

    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, slot: Slot) -> dict[str, Any]:
        return {**self.rows[slot.index], "micro": slot.micro, "filler": slot.filler}


class VisionStepCollator:
    """Slots of one step -> {"micro_batches": [...]}, each collated by TRL's vision collator
    (padded); a filler micro-batch carries no loss."""

    def __init__(self, collate: Any) -> None:
        self.collate = collate

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        groups: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            groups.setdefault(r["micro"], []).append(r)
        out = []
        for m in sorted(groups):
            filler = all(r["filler"] for r in groups[m])
            batch = self.collate([{k: v for k, v in r.items() if k not in ("micro", "filler")}
                                  for r in groups[m]])
            if filler:
                batch["labels"].fill_(-100)
            out.append(batch)
        return {"micro_batches": out}


def vision_step_loader(rows: Any, sampler: StepSampler, collate: Any) -> StepLoader:
    return StepLoader(VisionSlotRows(rows), batch_sampler=sampler,
                      collate_fn=VisionStepCollator(collate), num_workers=0)


class EvalSampler(Sampler[list[Slot]]):
    """Evaluation in micro-batches of the training budget: all records planned as one step
    (the same micro-batch count on every process), one micro-batch per item."""

    def __init__(self, lengths: Sequence[int], *, budget: int, packed: bool, world: int,
                 rank: int) -> None:
        self.plans = plan_step(range(len(lengths)), lengths, world, budget, packed)
        self.mine = self.plans[rank]
        self.shortest = min(range(len(lengths)), key=lambda i: lengths[i])
        # Records in the fullest micro-batch of any process: every process returns its
        # losses padded to this width, so the gathered tensors have one shape.
        self.width = max(len(b) for p in self.plans for b in p)

    def __len__(self) -> int:
        return len(self.mine)

    def __iter__(self) -> Iterator[list[Slot]]:
        for b in self.mine:
            yield [Slot(i, 0) for i in b] or [Slot(self.shortest, 0, filler=True)]


class EvalCollator(StepCollator):
    def __init__(self, pad_token_id: int, packed: bool, width: int) -> None:
        super().__init__(pad_token_id, packed)
        self.width = width

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {**super().__call__(rows), "width": self.width}


def eval_loader(rows: Any, *, budget: int, packed: bool, world: int, rank: int,
                pad_token_id: int) -> DataLoader:
    sampler = EvalSampler([len(ids) for ids in rows["input_ids"]], budget=budget,
                          packed=packed, world=world, rank=rank)
    return DataLoader(SlotRows(rows), batch_sampler=sampler, num_workers=0,
                      collate_fn=EvalCollator(pad_token_id, packed, sampler.width))


def answer_tokens(batch: dict[str, Any]) -> int:
    """Tokens that carry loss in a collated batch (labels shift by one: position 0 never
    does)."""
    return int(batch["labels"][..., 1:].ne(-100).sum())


def padded_tokens(batch: dict[str, Any]) -> int:
    return int(batch["input_ids"].numel())


def activation_bytes_per_token(layers: int, hidden: int, vocab: int, dtype_bytes: int,
                               checkpointing: bool) -> int:
    if checkpointing:
        per_unit = layers * ACT_PER_LAYER_UNIT_CHECKPOINTED + ACT_PER_LAYER_UNIT
    else:
        per_unit = layers * ACT_PER_LAYER_UNIT
    return dtype_bytes * (per_unit * hidden + ACT_PER_VOCAB * vocab)


def budget_from_memory(total_bytes: int, weight_bytes: int, per_token_bytes: int) -> int:
    """The rule of the default token budget on a GPU: 85% of its memory, less the weights and
    2 GiB, over the activation bytes per token; a multiple of 256, at least 256."""
    free = MEMORY_SHARE * total_bytes - weight_bytes - RESERVE_BYTES
    return max(256, int(free // per_token_bytes) // 256 * 256)
