"""Settings of one fine-tuning run, with the constraint-based evaluation paper's recipe as
defaults.

The constraint-based evaluation paper (§2.3 "Distillation") gives: LoRA on the query and value
projections (q_proj, v_proj), learning rate 1e-4, cosine schedule, batch size 16. It is silent
on the LoRA rank, alpha and dropout, the number of epochs, the maximum sequence length, warm-up,
weight decay, the optimizer and precision; the defaults below for those are webtraj's choices
(common LoRA values), marked `the paper is silent`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from webtraj.model.base import FrozenModel

SEED_TARGETS = ("q_proj", "v_proj")


class LoraSettings(FrozenModel):
    targets: tuple[str, ...] = SEED_TARGETS  # the constraint-based evaluation paper
    r: int = Field(default=16, ge=1)  # the paper is silent
    alpha: int = Field(default=32, ge=1)  # the paper is silent
    dropout: float = Field(default=0.05, ge=0, lt=1)  # the paper is silent
    # Modules trained in full beside the adapter (e.g. lm_head for a model with random
    # weights, as in the tests); none in the constraint-based evaluation paper.
    modules_to_save: tuple[str, ...] = ()
    # A vision-language base: LoRA on the language model only (the vision tower and its
    # projector frozen) unless this is set; ignored for a text base.
    vision_tower: bool = False


class TrainSettings(FrozenModel):
    """How to train, whatever the data and the base model (the distill recipe's `train`)."""

    lora: LoraSettings = LoraSettings()
    learning_rate: float = Field(default=1e-4, gt=0)  # the constraint-based evaluation paper
    scheduler: Literal["cosine", "linear", "constant", "constant_with_warmup"] = "cosine"
    # the constraint-based evaluation paper: effective batch (all devices)
    batch_size: int = Field(default=16, ge=1)
    # tokens: each step's records in micro-batches of at most tokens_per_batch tokens (None:
    # the rule in batching.py from the GPU's memory, 8192 on CPU); records: per_device_batch
    # records per micro-batch, accumulation derived from the process count.
    batching: Literal["tokens", "records"] = "tokens"
    tokens_per_batch: int | None = Field(default=None, ge=16)
    # auto: packed (padding-free) when the attention has a block-diagonal kernel (flash
    # attention varlen, flex attention), else length-grouped with padding.
    packing: Literal["auto", "on", "off"] = "auto"
    # auto: flash_attention_2 on a CUDA GPU when flash-attn is installed, else the model's own.
    attention: Literal["auto", "sdpa", "eager", "flash_attention_2", "flash_attention_3",
                       "flex_attention"] = "auto"
    per_device_batch: int = Field(default=1, ge=1)
    epochs: float = Field(default=3.0, gt=0)  # the paper is silent
    # the paper is silent; longer records are left out
    max_length: int = Field(default=8_192, ge=16)
    warmup_ratio: float = Field(default=0.03, ge=0, lt=1)  # the paper is silent
    weight_decay: float = Field(default=0.0, ge=0)  # the paper is silent
    max_grad_norm: float = Field(default=1.0, ge=0)  # the paper is silent; 0 = no clipping
    seed: int = 0
    merge: bool = False
    resume: bool = True
    save_total_limit: int = Field(default=2, ge=1)
    gradient_checkpointing: bool = False
    lm_head: LMHeadReport | None = None
    token_statistics: bool = False
    precision: Literal["auto", "fp32", "bf16", "fp16"] = "auto"
    # QLoRA: the frozen base in 4-bit NF4 (bitsandbytes, CUDA), the adapter in bf16.
    quantization: Literal["none", "4bit"] = "none"
    report_to: tuple[Literal["tensorboard", "wandb"], ...] = ()
    # The LM head of the training loss (see webtraj.train.lm_head): plain cross-entropy on the
    # answer positions' logits, TRL's fused chunked head, or auto (both measured on this device
    # when training starts, the faster kept; recorded in train_result.json).
    lm_head: Literal["auto", "plain", "fused"] = "auto"
    # Entropy and top-1 accuracy of the answer tokens in the logged metrics (they cost a pass
    # over the logits of every micro-batch; the loss does not need them).
    token_statistics: bool = False


class TrainConfig(TrainSettings):
    data: Path
    base: str
    out: Path


class EpochLoss(FrozenModel):
    epoch: float
    train_loss: float | None = None
    validation_loss: float | None = None


class LengthReport(FrozenModel):
    """Records left out because prompt + answer exceed max_length tokens."""

    split: str
    records: int
    kept: int
    cut: int
    longest: int
    max_length: int
    # Line numbers (1-based) of the first cut records, to find them in the JSONL.
    examples: tuple[int, ...] = ()


class BatchingReport(FrozenModel):
    """How the batches were made, and which attention path ran."""

    mode: Literal["tokens", "records"]
    records_per_step: int  # the effective batch: records averaged over in one optimizer step
    processes: int
    tokens_per_batch: int | None = None
    tokens_per_batch_from: str | None = None  # "option", or the rule that chose it
    layout: Literal["packed", "padded"]
    attention: str  # the model's attention implementation
    attention_path: str  # how records are kept apart
    micro_batches: int | None = None  # run by this process in this session
    padding_share: float | None = None  # padded tokens / all tokens fed, this process


class LMHeadReport(FrozenModel):
    """Which LM head computed the loss, and the measurement that chose it (auto)."""

    path: Literal["plain", "fused"]
    chosen_by: str  # "option", or the measurement's verdict
    probe_tokens: int | None = None
    plain_ms: float | None = None  # forward + backward of the head alone, best of 3
    fused_ms: float | None = None
    plain_peak_mb: float | None = None  # extra GPU memory of the head (None on CPU)
    fused_peak_mb: float | None = None


class TrainResult(FrozenModel):
    # text: a causal LM on chat text; vision: a vision-language model on records with images
    kind: Literal["text", "vision"] = "text"
    # vision: whether LoRA adapted the vision tower and projector too
    vision_tower: bool = False
    out: Path
    adapter: Path
    merged: Path | None = None
    base: str
    steps: int
    epochs: float
    train_records: int
    validation_records: int
    lengths: tuple[LengthReport, ...]
    losses: tuple[EpochLoss, ...]
    first_loss: float | None = None
    final_loss: float | None = None
    trained_tokens: int
    runtime_s: float
    tokens_per_s: float
    peak_memory_mb: float | None = None
    resumed_from: str | None = None
    batching: BatchingReport | None = None
    quantization: str = "none"
    gradient_checkpointing: bool = False
    lm_head: LMHeadReport | None = None
    token_statistics: bool = False
