"""TRL's SFTTrainer with token-budget steps (see `batching`): the dataloader yields one
optimizer step per item (this process's micro-batches), and the training step runs them with
the loss normalised by the answer tokens of the whole step on all processes, gradients
synchronised on the last one only. Everything else (optimizer, schedule, checkpoints,
evaluation, logging, mixed precision, DDP/FSDP wrapping) is the Trainer's.

A vision-language model's records are not tokenized ahead (TRL processes images on the fly):
their lengths come in (`lengths`, image tokens counted) and each micro-batch is collated by
TRL's vision collator, padded."""

from __future__ import annotations

import contextlib
from typing import Any

import torch
from trl import SFTTrainer

from webtraj.train.batching import (
    StepSampler,
    answer_tokens,
    padded_tokens,
    step_loader,
    vision_step_loader,
)


class TokenBudgetTrainer(SFTTrainer):
    def __init__(self, *args: Any, records_per_step: int, tokens_per_batch: int, packed: bool,
                 lengths: list[int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lengths = lengths
        self.records_per_step, self.tokens_per_batch = records_per_step, tokens_per_batch
        self.packed = packed
        self.micro_batches = 0
        self.padded = 0
        self.record_tokens = 0

    def step_sampler(self) -> StepSampler:
        if self.lengths is None:
            rows = self._remove_unused_columns(self.train_dataset, description="training")
            lengths = [len(ids) for ids in rows["input_ids"]]
        else:
            lengths = self.lengths
        return StepSampler(lengths,
                           batch_size=self.records_per_step, budget=self.tokens_per_batch,
                           packed=self.packed, world=self.args.world_size,
                           rank=self.args.process_index, seed=self.args.seed)

    def get_train_dataloader(self):  # noqa: ANN201 - torch DataLoader
        rows = self._remove_unused_columns(self.train_dataset, description="training")
        # Not prepared by accelerate: the sampler already gives each process its share.
        if self.lengths is not None:
            return vision_step_loader(rows, self.step_sampler(), self.data_collator)
        return step_loader(rows, self.step_sampler(), self.processing_class.pad_token_id)

    def floating_point_ops(self, inputs: dict[str, Any]) -> int:
        return sum(super(TokenBudgetTrainer, self).floating_point_ops(b)
                   for b in inputs["micro_batches"])

    def training_step(self, model, inputs, num_items_in_batch=None):  # noqa: ANN001, ANN201
        micro = inputs["micro_batches"]
        items = torch.tensor(sum(answer_tokens(b) for b in micro), device=self.args.device)
        if self.args.world_size > 1:
            items = self.accelerator.gather(items).sum()
        deepspeed = self.is_deepspeed_enabled
        total = None
        for i, batch in enumerate(micro):
            self.micro_batches += 1
            self.padded += padded_tokens(batch)
            self.record_tokens += int(batch["labels"].numel() if self.packed
                                      else batch["attention_mask"].sum())
            last = i == len(micro) - 1
            sync = (contextlib.nullcontext() if last or self.args.world_size == 1 or deepspeed
                    else self.accelerator.no_sync(model))
            with sync:
                loss = super().training_step(model, batch, items)
            total = loss if total is None else total + loss
        return total
