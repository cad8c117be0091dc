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


PAPER = "the constraint-based evaluation paper, §2.3"


class LoraSettings(FrozenModel):
    targets: tuple[str, ...] = Field(
        default=SEED_TARGETS, description=f"Module names for LoRA, or all-linear ({PAPER}: "
        "q_proj,v_proj).")
    r: int = Field(default=16, ge=1, description="LoRA rank (the paper is silent).")
    alpha: int = Field(default=32, ge=1, description="LoRA alpha (the paper is silent).")
    dropout: float = Field(default=0.05, ge=0, lt=1,
                           description="LoRA dropout (the paper is silent).")
    modules_to_save: tuple[str, ...] = Field(
        default=(), description="Modules trained in full beside the adapter (e.g. lm_head "
        "for a model with random weights, as in the tests; none in the paper).")
    vision_tower: bool = Field(
        default=False, description="A vision-language base: LoRA on the vision tower and its "
        "projector too (by default on the language model only); ignored for a text base.")


class TrainSettings(FrozenModel):
    """How to train, whatever the data and the base model (the distill recipe's `train`).
    The descriptions are `webtraj train`'s help."""

    lora: LoraSettings = LoraSettings()
    learning_rate: float = Field(default=1e-4, gt=0, description=f"Learning rate ({PAPER}: "
                                 "1e-4).")
    scheduler: Literal["cosine", "linear", "constant", "constant_with_warmup"] = Field(
        default="cosine", description=f"Learning-rate schedule ({PAPER}: cosine).")
    batch_size: int = Field(default=16, ge=1, description="Effective batch: records per "
                            f"optimizer step over all devices ({PAPER}: 16).")
    batching: Literal["tokens", "records"] = Field(
        default="tokens", description="tokens: each step's records in micro-batches of at "
        "most --tokens-per-batch tokens; records: --per-device-batch records per micro-batch, "
        "accumulation derived from the process count.")
    tokens_per_batch: int | None = Field(
        default=None, ge=16, description="Token budget of a micro-batch, in training and "
        "validation (default: from the GPU's memory, see docs/training.md; 8192 on CPU). "
        "Each optimizer step still takes --batch-size records.")
    packing: Literal["auto", "on", "off"] = Field(
        default="auto", description="Pack records padding-free into one row (auto: when the "
        "attention has a varlen or flex kernel), else group by length and pad.")
    attention: Literal["auto", "sdpa", "eager", "flash_attention_2", "flash_attention_3",
                       "flex_attention"] = Field(
        default="auto", description="Attention implementation (auto: flash_attention_2 on a "
        "GPU when flash-attn is installed, else the model's default).")
    per_device_batch: int = Field(default=1, ge=1, description="Records per device per "
                                  "micro-batch with --batching records (and per evaluation "
                                  "batch there).")
    epochs: float = Field(default=3.0, gt=0, description="Epochs (the paper is silent).")
    max_length: int = Field(default=8_192, ge=16, description="Longest record in tokens; "
                            "longer ones are left out and reported (the paper is silent).")
    warmup_ratio: float = Field(default=0.03, ge=0, lt=1, description="Warm-up share of the "
                                "steps (the paper is silent).")
    weight_decay: float = Field(default=0.0, ge=0, description="AdamW weight decay (the "
                                "paper is silent).")
    max_grad_norm: float = Field(default=1.0, ge=0, description="Gradient clipping norm; 0: "
                                 "no clipping (the paper is silent).")
    seed: int = Field(default=0, description="Seed of initialisation and data order.")
    merge: bool = Field(default=False, description="Also write merged weights to OUT/merged.")
    resume: bool = Field(default=True, description="Resume from the last checkpoint in OUT.")
    save_total_limit: int = Field(default=2, ge=1, description="Checkpoints kept.")
    gradient_checkpointing: bool = Field(
        default=False, description="Keep only each layer's input and recompute the rest in "
        "the backward pass: about a third more compute, activation memory of one layer "
        "instead of all (the default token budget grows accordingly).")
    precision: Literal["auto", "fp32", "bf16", "fp16"] = Field(
        default="auto", description="auto: bf16 on GPUs that have it, else fp16; fp32 on CPU.")
    quantization: Literal["none", "4bit"] = Field(
        default="none", description="4bit (QLoRA): the frozen base in 4-bit NF4, the adapter "
        "in bf16; needs bitsandbytes and a CUDA GPU.")
    report_to: tuple[Literal["tensorboard", "wandb"], ...] = Field(
        default=(), description="Where the Trainer's metrics also go: tensorboard, wandb "
        "(each needs its package installed).")
    lm_head: Literal["auto", "plain", "fused"] = Field(
        default="auto", description="LM head of the training loss: plain (cross-entropy on "
        "the answer positions' logits), fused (TRL's chunked head, no logits kept), or auto "
        "(both measured on this device when training starts, the faster kept; "
        "train_result.json says which and why).")
    token_statistics: bool = Field(
        default=False, description="Also log the answer tokens' entropy and top-1 accuracy "
        "per step (a pass over the logits of every micro-batch; the loss needs neither).")


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
