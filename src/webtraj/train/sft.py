"""LoRA supervised fine-tuning with TRL's SFTTrainer and PEFT.

Output folder: `checkpoints/` (one per epoch, resumable), `adapter/` (the LoRA adapter and
the tokenizer, loadable with PEFT or vLLM's --lora-modules), optional `merged/` (base weights
with the adapter folded in) and `train_result.json` (lengths cut, losses per epoch, speed).
Runs as is on CPU or one GPU; under `accelerate launch` each process takes its share of the
effective batch."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from webtraj.model.errors import InputError
from webtraj.train import vision
from webtraj.train.config import (
    BatchingReport,
    EpochLoss,
    LengthReport,
    TrainConfig,
    TrainResult,
)
from webtraj.train.data import Example, cut_long, read_split, to_rows, to_vision_dataset

ProgressFn = Callable[[int, int, float | None], None]
CHECKPOINTS = "checkpoints"
ADAPTER = "adapter"
MERGED = "merged"
RESULT = "train_result.json"


def world_size() -> int:
    return max(1, int(os.environ.get("WORLD_SIZE", "1")))


def grad_accumulation(cfg: TrainConfig) -> int:
    per_step = cfg.per_device_batch * world_size()
    if cfg.batch_size % per_step:
        raise InputError(f"batch size {cfg.batch_size} is not a multiple of per-device batch "
                         f"{cfg.per_device_batch} x {world_size()} process(es)",
                         field="batch_size")
    return cfg.batch_size // per_step


def _precision(cfg: TrainConfig) -> dict[str, bool]:
    import torch

    mode = cfg.precision
    if mode == "auto":
        mode = ("bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported()
                else "fp16" if torch.cuda.is_available() else "fp32")
    return {"bf16": mode == "bf16", "fp16": mode == "fp16"}


def load_tokenizer(base: str) -> Any:
    from transformers import AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(base)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot load a tokenizer from {base!r}: {exc}", field="base") from None
    if tok.chat_template is None:
        raise InputError(f"{base!r} has no chat template; use an instruct model or add "
                         "chat_template to its tokenizer_config.json", field="base")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def _targets(targets: tuple[str, ...]) -> list[str] | str:
    """PEFT's shorthand for every linear layer but the output head."""
    return "all-linear" if targets == ("all-linear",) else list(targets)


def last_checkpoint(out: Path) -> str | None:
    from transformers.trainer_utils import get_last_checkpoint

    folder = out / CHECKPOINTS
    return get_last_checkpoint(str(folder)) if folder.is_dir() else None


def _callback(progress: ProgressFn | None, losses: dict[float, dict[str, float]],
              step_losses: list[float]):
    from transformers import TrainerCallback

    class Track(TrainerCallback):
        """Feeds the progress bar and keeps the losses the summary shows."""

        def on_step_end(self, args, state, control, **kw):  # noqa: ANN001
            if progress:
                progress(state.global_step, state.max_steps,
                         step_losses[-1] if step_losses else None)

        def on_log(self, args, state, control, logs=None, **kw):  # noqa: ANN001
            logs = logs or {}
            epoch = round(math.ceil((state.epoch or 0) - 1e-9), 0) or 1.0
            if "loss" in logs:
                step_losses.append(float(logs["loss"]))
                losses.setdefault(epoch, {}).setdefault("train", []).append(float(logs["loss"]))
            if "eval_loss" in logs:
                losses.setdefault(epoch, {})["eval"] = float(logs["eval_loss"])

    return Track()


def _epoch_losses(losses: dict[float, dict[str, Any]]) -> tuple[EpochLoss, ...]:
    out = []
    for epoch in sorted(losses):
        train = losses[epoch].get("train") or []
        out.append(EpochLoss(epoch=epoch, train_loss=sum(train) / len(train) if train else None,
                             validation_loss=losses[epoch].get("eval")))
    return tuple(out)


def train(cfg: TrainConfig, *, progress: ProgressFn | None = None,
          on_lengths: Callable[[LengthReport], None] | None = None,
          on_model: Callable[[Any, Any], None] | None = None,
          callbacks: Sequence[Any] = ()) -> TrainResult:
    """Fine-tune `cfg.base` on `cfg.data`; resumes from the last checkpoint in `cfg.out`.
    `on_model(model, tokenizer)` sees the trained model in memory, before it is saved;
    `callbacks` are transformers TrainerCallbacks added to webtraj's own."""
    import torch
    from datasets import Dataset
    from peft import LoraConfig
    from trl import SFTConfig

    from webtraj.train import lm_head

    train_file, val_file = cfg.data / "train.jsonl", cfg.data / "validation.jsonl"
    if not train_file.exists():
        raise InputError("no train.jsonl (write one with webtraj curate or webtraj mind2web "
                         "export-sft)", file=cfg.data)
    kind = vision.model_kind(cfg.base)
    tok = vision.load_processor(cfg.base) if kind == "vision" else load_tokenizer(cfg.base)
    reports = []
    splits = {}
    token_total = 0
    train_lengths: list[int] = []
    for split, path in (("train", train_file), ("validation", val_file)):
        examples = read_split(path)
        _check_kind(kind, examples, path, cfg)
        kept, lengths, report = cut_long(tok, split, examples, cfg.max_length)
        reports.append(report)
        if on_lengths:
            on_lengths(report)
        splits[split] = kept
        if split == "train":
            token_total = sum(lengths)
            train_lengths = lengths
    if not splits["train"]:
        raise InputError(f"no training record fits max_length {cfg.max_length}",
                         file=train_file)
    has_val = bool(splits["validation"])
    tokens_mode = cfg.batching == "tokens"
    accum = 1 if tokens_mode else grad_accumulation(cfg)
    report_to = _report_to(cfg)
    model = _load_model(cfg, kind)
    layout, attention, path = attention_path(cfg, model, kind)
    budget, budget_from = (tokens_per_batch(cfg, model) if tokens_mode else (None, None))
    cfg.out.mkdir(parents=True, exist_ok=True)
    args = SFTConfig(
        output_dir=str(cfg.out / CHECKPOINTS), num_train_epochs=cfg.epochs,
        learning_rate=cfg.learning_rate, lr_scheduler_type=cfg.scheduler,
        warmup_steps=cfg.warmup_ratio, weight_decay=cfg.weight_decay,
        max_grad_norm=cfg.max_grad_norm,
        per_device_train_batch_size=1 if tokens_mode else cfg.per_device_batch,
        # Token mode evaluates in micro-batches of the token budget, one per item.
        per_device_eval_batch_size=1 if tokens_mode else cfg.per_device_batch,
        gradient_accumulation_steps=accum,
        max_length=cfg.max_length, completion_only_loss=True, packing=False,
        eval_strategy="epoch" if has_val else "no", save_strategy="epoch",
        save_total_limit=cfg.save_total_limit, logging_steps=1, logging_first_step=True,
        seed=cfg.seed, data_seed=cfg.seed, report_to=report_to, disable_tqdm=True,
        dataloader_num_workers=0, average_tokens_across_devices=True,
        # TRL turns checkpointing on by default; webtraj leaves it to the option.
        activation_checkpointing=cfg.gradient_checkpointing,
        use_cpu=not torch.cuda.is_available(), **_precision(cfg))
    peft_config = LoraConfig(r=cfg.lora.r, lora_alpha=cfg.lora.alpha,
                             lora_dropout=cfg.lora.dropout, bias="none",
                             target_modules=(vision.lora_targets(model, cfg.lora.targets,
                                                                 cfg.lora.vision_tower)
                                             if kind == "vision" else _targets(cfg.lora.targets)),
                             task_type="CAUSAL_LM",
                             modules_to_save=list(cfg.lora.modules_to_save) or None)
    head = lm_head.choose(cfg.lm_head, model, budget=budget, device=args.device,
                          train_weight=_trains_lm_head(cfg), dtype=_compute_dtype(cfg, model))
    losses: dict[float, dict[str, Any]] = {}
    step_losses: list[float] = []
    rows = to_vision_dataset if kind == "vision" else (
        lambda ex: Dataset.from_list(to_rows(ex)))
    common = dict(
        lm_head=head.path, token_statistics=cfg.token_statistics,
        model=model, args=args, processing_class=tok, peft_config=peft_config,
        train_dataset=rows(splits["train"]),
        eval_dataset=rows(splits["validation"]) if has_val else None,
        callbacks=[_callback(progress, losses, step_losses), *callbacks])
    from webtraj.train.step_trainer import LossTrainer, TokenBudgetTrainer

    if tokens_mode:
        trainer = TokenBudgetTrainer(**common, records_per_step=cfg.batch_size,
                                     tokens_per_batch=budget, packed=layout == "packed",
                                     lengths=train_lengths if kind == "vision" else None)
    else:
        trainer = LossTrainer(**common)
    resume = last_checkpoint(cfg.out) if cfg.resume else None
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    out = trainer.train(resume_from_checkpoint=resume)
    runtime = time.perf_counter() - t0
    if on_model:
        on_model(trainer.model, tok)
    adapter = cfg.out / ADAPTER
    trainer.save_model(str(adapter))
    tok.save_pretrained(str(adapter))
    merged = None
    if cfg.merge and trainer.is_world_process_zero():
        merged = merge_adapter(cfg.base, adapter, cfg.out / MERGED, kind)
    peak = (torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available()
            else _peak_rss_mb())
    # Tokens trained in this session: from the resumed checkpoint's epoch to the end.
    trained = int(token_total * max(0.0, float(out.metrics.get("epoch", cfg.epochs))
                                    - _checkpoint_epoch(resume)))
    result = TrainResult(
        kind=kind, vision_tower=kind == "vision" and cfg.lora.vision_tower,
        out=cfg.out, adapter=adapter, merged=merged, base=cfg.base,
        steps=out.global_step, epochs=cfg.epochs, train_records=len(splits["train"]),
        validation_records=len(splits["validation"]), lengths=tuple(reports),
        losses=_epoch_losses(losses), first_loss=step_losses[0] if step_losses else None,
        final_loss=step_losses[-1] if step_losses else None, trained_tokens=trained,
        runtime_s=runtime, tokens_per_s=trained / runtime if runtime > 0 else 0.0,
        peak_memory_mb=peak, resumed_from=resume, quantization=cfg.quantization,
        gradient_checkpointing=cfg.gradient_checkpointing, lm_head=head,
        token_statistics=cfg.token_statistics,
        batching=BatchingReport(
            mode=cfg.batching, records_per_step=cfg.batch_size, processes=world_size(),
            tokens_per_batch=budget, tokens_per_batch_from=budget_from, layout=layout,
            attention=attention, attention_path=path,
            micro_batches=getattr(trainer, "micro_batches", None),
            padding_share=_padding_share(trainer)))
    if trainer.is_world_process_zero():
        from webtraj.store.atomic import write_bytes_atomic

        write_bytes_atomic(cfg.out / RESULT, result.model_dump_json(indent=2).encode())
    return result


def _trains_lm_head(cfg: TrainConfig) -> bool:
    return any(m.split(".")[-1] == "lm_head" for m in cfg.lora.modules_to_save)


def _compute_dtype(cfg: TrainConfig, model: Any) -> Any:
    """The dtype the LM head computes in: autocast's under bf16/fp16, else the weights'."""
    import torch

    mode = _precision(cfg)
    return (torch.bfloat16 if mode["bf16"] else torch.float16 if mode["fp16"]
            else model.get_output_embeddings().weight.dtype)


def _report_to(cfg: TrainConfig) -> list[str] | str:
    import importlib.util

    for name in cfg.report_to:
        module = "wandb" if name == "wandb" else "tensorboard"
        if importlib.util.find_spec(module) is None and (
                name != "tensorboard" or importlib.util.find_spec("tensorboardX") is None):
            raise InputError(f"--report-to {name} needs the {module} package "
                             f"(pip install {module})", field="report_to")
    if "tensorboard" in cfg.report_to:
        os.environ.setdefault("TENSORBOARD_LOGGING_DIR", str(cfg.out / "logs"))
    return list(cfg.report_to) or "none"


def _check_kind(kind: vision.Kind, examples: list[Example], path: Path,
                cfg: TrainConfig) -> None:
    """Records in parts (with images) need a vision-language base."""
    if kind == "text":
        for ex in examples:
            if ex.multimodal:
                raise InputError(f"this record is in the vision form (content parts"
                                 f"{', images' if ex.images else ''}) but {cfg.base!r} is a "
                                 "text model; train it with a vision-language base",
                                 file=path, record=ex.line, field="messages")
    elif cfg.packing == "on":
        raise InputError("--packing on: a vision-language model trains on padded rows "
                         "(TRL packs no images)", field="packing")


def _load_model(cfg: TrainConfig, kind: vision.Kind = "text") -> Any:
    """The base model, with the attention implementation and quantization asked for."""
    import importlib.util

    import torch
    from transformers import AutoModelForCausalLM

    kwargs: dict[str, Any] = {"dtype": "auto"}
    attention = cfg.attention
    if attention == "auto":
        attention = ("flash_attention_2" if torch.cuda.is_available()
                     and importlib.util.find_spec("flash_attn") is not None else None)
    if attention:
        kwargs["attn_implementation"] = attention
    if cfg.quantization == "4bit":
        if importlib.util.find_spec("bitsandbytes") is None:
            raise InputError("--quantization 4bit (QLoRA) needs bitsandbytes: pip install "
                             "bitsandbytes", field="quantization")
        if not torch.cuda.is_available():
            raise InputError("--quantization 4bit (QLoRA) needs a CUDA GPU",
                             field="quantization")
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16)
    if kind == "vision":
        return vision.load_model(cfg.base, **kwargs)
    try:
        return AutoModelForCausalLM.from_pretrained(cfg.base, **kwargs)
    except (OSError, ValueError, ImportError) as exc:
        raise InputError(f"cannot load a causal LM from {cfg.base!r}: {exc}",
                         field="base") from None


# Attention implementations whose kernels take packed records apart without a dense mask.
BLOCK_KERNELS = ("flash_attention_2", "flash_attention_3", "flex_attention")


def attention_path(cfg: TrainConfig, model: Any, kind: vision.Kind = "text"
                   ) -> tuple[str, str, str]:
    """(layout, attention implementation, how records are kept apart); a vision-language
    model always pads (TRL's vision collator packs nothing)."""
    impl = str(getattr(model.config, "_attn_implementation", None) or "eager")
    packed = kind == "text" and cfg.batching == "tokens" and (
        cfg.packing == "on" or (cfg.packing == "auto" and impl in BLOCK_KERNELS))
    if not packed:
        return "padded", impl, f"one record per row, padding masked ({impl})"
    if impl.startswith("flash_attention"):
        return "packed", impl, f"packed rows, varlen kernel on the record starts ({impl})"
    return "packed", impl, (f"packed rows, block-diagonal mask from the restarting positions "
                            f"({impl})")


def tokens_per_batch(cfg: TrainConfig, model: Any) -> tuple[int, str]:
    """The micro-batch token budget: the option, or the rule (batching.budget_from_memory on
    a CUDA GPU, batching.CPU_TOKENS_PER_BATCH elsewhere)."""
    import torch

    from webtraj.train import batching

    if cfg.tokens_per_batch:
        return cfg.tokens_per_batch, "option"
    if not torch.cuda.is_available():
        return batching.CPU_TOKENS_PER_BATCH, "CPU default"
    text = model.config.get_text_config()
    dtype_bytes = 4 if _precision(cfg) == {"bf16": False, "fp16": False} else 2
    per_token = batching.activation_bytes_per_token(
        text.num_hidden_layers, text.hidden_size, text.vocab_size, dtype_bytes,
        cfg.gradient_checkpointing)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    budget = batching.budget_from_memory(total, weights, per_token)
    return budget, (f"rule: ({batching.MEMORY_SHARE:g} x {total / 2**30:.0f} GiB - weights "
                    f"{weights / 2**30:.1f} GiB - 2 GiB) / {per_token / 2**20:.2f} MiB per token")


def _padding_share(trainer: Any) -> float | None:
    fed = getattr(trainer, "padded", 0)
    return None if not fed else 1 - trainer.record_tokens / fed


def _checkpoint_epoch(checkpoint: str | None) -> float:
    if checkpoint is None:
        return 0.0
    import orjson

    state = orjson.loads((Path(checkpoint) / "trainer_state.json").read_bytes())
    return float(state.get("epoch") or 0.0)


def _peak_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def merge_adapter(base: str, adapter: Path, out: Path, kind: vision.Kind = "text") -> Path:
    """Fold the LoRA weights into the base model and save a plain model folder."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if kind == "vision":
        model = vision.load_model(base, dtype="auto")
    else:
        model = AutoModelForCausalLM.from_pretrained(base, dtype="auto")
    merged = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    merged.save_pretrained(str(out))
    if kind == "vision":
        vision.load_processor(str(adapter)).save_pretrained(str(out))
    else:
        AutoTokenizer.from_pretrained(str(adapter)).save_pretrained(str(out))
    return out
