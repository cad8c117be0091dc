"""TRL's SFTTrainer, paying only for what the recipe uses, and with token-budget steps.

`LossTrainer` computes the loss on the LM head chosen for this device (`webtraj.train.lm_head`:
plain cross-entropy on the answer positions, or TRL's fused chunked head) and the per-token
entropy and accuracy only when asked for; everything else is TRL's `compute_loss` (the loss is
its `nll` over `num_items_in_batch`, scaled by the process count as it does).

`TokenBudgetTrainer` (see `batching`): the dataloader yields one optimizer step per item (this
process's micro-batches), and the training step runs them with the loss normalised by the
answer tokens of the whole step on all processes, gradients synchronised on the last one only.
Evaluation runs in micro-batches of the same token budget and gives the mean over records of
each record's answer-token loss, as evaluation one record at a time does. Everything else
(optimizer, schedule, checkpoints, evaluation loop, logging, mixed precision, DDP/FSDP
wrapping) is the Trainer's.

A vision-language model's records are not tokenized ahead (TRL processes images on the fly):
their lengths come in (`lengths`, image tokens counted) and each micro-batch is collated by
TRL's vision collator, padded; their evaluation is the Trainer's, one record per batch."""

from __future__ import annotations

import contextlib
from typing import Any

import torch
from accelerate.utils import is_peft_model
from trl import SFTTrainer
from trl.trainer.utils import add_fused_lm_head

from webtraj.train.batching import (
    StepSampler,
    answer_tokens,
    eval_loader,
    padded_tokens,
    step_loader,
    vision_step_loader,
)
from webtraj.train.lm_head import keeps_logits, record_losses, token_losses


class LossTrainer(SFTTrainer):
    def __init__(self, *args: Any, lm_head: str, token_statistics: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lm_head_path, self.token_statistics = lm_head, token_statistics
        base = self.model.get_base_model() if is_peft_model(self.model) else self.model
        self.keep_logits = keeps_logits(base)
        # TRL's own loss where webtraj's does not apply (an MoE student's auxiliary loss).
        self.trl_loss = self.aux_loss_enabled
        if not self.trl_loss:
            # TRL fused its head asking for entropy and top-1 on every call; ask for them only
            # when they are wanted (the original forward is the class's).
            vars(base).pop("forward", None)
            add_fused_lm_head(base, outputs=("log_probs", "entropy", "is_top1")
                              if token_statistics else ("log_probs",))

    def compute_loss(self, model, inputs, return_outputs=False,  # noqa: ANN001, ANN201
                     num_items_in_batch=None):
        if self.trl_loss or return_outputs:
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        scored = token_losses(model, inputs, self.lm_head_path, self.token_statistics,
                              self.keep_logits)
        count = scored.mask.sum() if num_items_in_batch is None else num_items_in_batch
        loss = scored.nll.sum() / torch.as_tensor(count).clamp(min=1)
        # As TRL's compute_loss: num_items_in_batch counts every process's tokens, DDP
        # averages the gradients over the processes.
        if self.args.average_tokens_across_devices and num_items_in_batch is not None:
            loss = loss * (self.accelerator.num_processes // self.get_tp_size())
        if self.token_statistics:
            self._log_token_statistics(scored)
        return loss

    def _log_token_statistics(self, scored: Any) -> None:
        mode = "train" if self.model.training else "eval"
        gather = self.accelerator.gather_for_metrics
        valid = gather(scored.mask.sum()).sum()
        if valid > 0:
            self._metrics[mode]["entropy"].append(
                float(gather(scored.entropy.detach().sum()).sum() / valid))
            self._metrics[mode]["mean_token_accuracy"].append(
                float(gather(scored.top1.sum()).sum() / valid))


class TokenBudgetTrainer(LossTrainer):
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

    def get_eval_dataloader(self, eval_dataset=None):  # noqa: ANN001, ANN201
        if self.lengths is not None:  # vision records: not tokenized ahead
            return super().get_eval_dataloader(eval_dataset)
        if isinstance(eval_dataset, str):
            eval_dataset = self.eval_dataset[eval_dataset]
        rows = self._remove_unused_columns(eval_dataset or self.eval_dataset,
                                           description="evaluation")
        return eval_loader(rows, budget=self.tokens_per_batch, packed=self.packed,
                           world=self.args.world_size, rank=self.args.process_index,
                           pad_token_id=self.processing_class.pad_token_id)

    def prediction_step(self, model, inputs, prediction_loss_only,  # noqa: ANN001, ANN201
                        ignore_keys=None):
        """One micro-batch's records -> their losses, NaN-padded to the loader's width (the
        same shape on every process; the Trainer's evaluation loop drops the NaNs and takes
        the mean, with an evaluation batch size of 1)."""
        if "micro_batches" not in inputs:  # vision records: the Trainer's evaluation
            return super().prediction_step(model, inputs, prediction_loss_only, ignore_keys)
        batch = self._prepare_inputs(inputs["micro_batches"][0])
        with torch.no_grad(), self.compute_loss_context_manager():
            scored = token_losses(model, batch, self.lm_head_path, False, self.keep_logits)
        losses = record_losses(scored, batch).float()
        width = inputs["width"]
        padded = losses.new_full((width,), float("nan"))
        padded[:len(losses)] = losses
        return padded, None, None

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
