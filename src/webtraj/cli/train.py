"""`webtraj train`: LoRA fine-tuning on curated chat data, with the recipe of the constraint-based
evaluation paper (Logeswaran et al., "Scaling Web Agent Training through Automatic Data
Generation and Fine-grained Evaluation", §2.3) as defaults."""

from __future__ import annotations

import os
import typing
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from webtraj.cli.common import console, err_console, fail
from webtraj.cli.run_settings import setting, setting_help
from webtraj.train.config import LoraSettings, TrainSettings
from webtraj.train.mind2web_sft import SftExportSettings


def option(name: str, *flags: str, model: Any = TrainSettings, form: str = "",
           negate: bool = False) -> Any:
    """A `webtraj train` option for a field of TrainSettings (or LoraSettings): its default,
    bounds and help come from the model; a field of fixed choices lists them first, a tuple
    is spelled comma-separated."""
    field = model.model_fields[name]
    choices = typing.get_args(field.annotation) if typing.get_origin(
        field.annotation) is typing.Literal else ()
    help_form = form or (" | ".join(choices) if choices else "")
    default = field.get_default()
    text = None
    if isinstance(default, tuple):
        text = ",".join(default)
        help_form = help_form or "comma-separated"
    option_ = setting(name, *flags, model=model, negate=negate, default=text)
    if choices:  # the choices lead: "auto | on | off: ..."
        option_.help = f"{help_form}: {setting_help(name, negate=negate, model=model)}"
    elif help_form:
        option_.help = setting_help(name, form=help_form, negate=negate, model=model)
    return option_


def train(
    data: Path = typer.Option(..., "--data", help="Folder with train.jsonl [and "
                              "validation.jsonl] (webtraj curate / mind2web export-sft)."),
    base: str = typer.Option(..., "--base", help="Base model: a Hugging Face folder or id."),
    out: Path = typer.Option(..., "--out", help="Output folder (checkpoints, adapter, "
                             "merged, train_result.json)."),
    epochs: float = option("epochs"),
    learning_rate: float = option("learning_rate", "--lr"),
    batch_size: int = option("batch_size"),
    tokens_per_batch: int | None = option("tokens_per_batch"),
    batching: str = option("batching"),
    packing: str = option("packing"),
    attention: str = option("attention"),
    per_device_batch: int = option("per_device_batch"),
    max_length: int = option("max_length"),
    lora_r: int = option("r", "--lora-r", model=LoraSettings),
    lora_alpha: int = option("alpha", "--lora-alpha", model=LoraSettings),
    lora_dropout: float = option("dropout", "--lora-dropout", model=LoraSettings),
    targets: str = option("targets", model=LoraSettings),
    modules_to_save: str = option("modules_to_save", model=LoraSettings),
    vision_tower: bool = option("vision_tower", model=LoraSettings),
    scheduler: str = option("scheduler"),
    warmup_ratio: float = option("warmup_ratio", "--warmup"),
    seed: int = option("seed"),
    merge: bool = option("merge"),
    no_resume: bool = option("resume", "--no-resume", negate=True),
    precision: str = option("precision"),
    gradient_checkpointing: bool = option("gradient_checkpointing"),
    quantization: str = option("quantization"),
    report_to: str = option("report_to"),
    lm_head: str = option("lm_head"),
    token_statistics: bool = option("token_statistics"),
) -> None:
    """Fine-tune a base model with LoRA on curated data (TRL SFTTrainer + PEFT): loss on the
    answers only, validation loss per epoch, a checkpoint per epoch (re-running resumes).
    Multi-GPU: `accelerate launch --num_processes N -m webtraj.cli.app train ...` (the
    effective batch stays --batch-size records; see docs/training.md for multi-node and FSDP).

    Example: webtraj train --data data/heur --base Qwen/Qwen2.5-7B-Instruct --out students/q7
    """
    try:
        from webtraj.train.config import TrainConfig
        from webtraj.train.sft import train as run_train
    except ImportError as exc:
        raise fail(f"webtraj train needs the train extra: pip install 'webtraj[train]' "
                   f"({escape(str(exc))})") from None
    from pydantic import ValidationError

    from webtraj.model.errors import InputError

    def listed(text: str | None) -> tuple[str, ...]:
        return tuple(x.strip() for x in (text or "").split(",") if x.strip())

    try:
        cfg = TrainConfig(
            data=data, base=base, out=out, epochs=epochs, learning_rate=learning_rate,
            batch_size=batch_size, per_device_batch=per_device_batch, max_length=max_length,
            tokens_per_batch=tokens_per_batch, batching=batching, packing=packing,
            attention=attention, quantization=quantization, report_to=listed(report_to),
            lora=LoraSettings(r=lora_r, alpha=lora_alpha, dropout=lora_dropout,
                              targets=listed(targets), modules_to_save=listed(modules_to_save),
                              vision_tower=vision_tower),
            scheduler=scheduler, warmup_ratio=warmup_ratio, seed=seed,
            merge=merge, resume=not no_resume, precision=precision,
            gradient_checkpointing=gradient_checkpointing, lm_head=lm_head,
            token_statistics=token_statistics)
    except ValidationError as exc:
        raise fail(escape(str(exc))) from None
    try:
        result = run_with_progress(cfg, run_train)
    except InputError as exc:
        raise fail(escape(str(exc))) from None
    if int(os.environ.get("RANK", "0")) == 0:  # once under accelerate launch / torchrun
        print_summary(result)


def run_with_progress(cfg, run_train):  # noqa: ANN001, ANN201 - lazily imported types
    from webtraj.train.config import LengthReport

    def lengths(r: LengthReport) -> None:
        if r.cut:
            err_console.print(
                f"[yellow]{r.split}: {r.cut} of {r.records} records are longer than "
                f"{r.max_length} tokens (longest {r.longest}) and are left out; first lines: "
                f"{', '.join(map(str, r.examples))}[/]", highlight=False)
        elif r.records:
            console.print(f"{r.split}: {r.records} records, longest {r.longest} tokens",
                          highlight=False)

    with Progress(TextColumn("[bold]training"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("loss {task.fields[loss]}"), TimeElapsedColumn(),
                  console=err_console, transient=True) as progress:
        bar = progress.add_task("steps", total=None, loss="-")

        def step(done: int, total: int, loss: float | None) -> None:
            progress.update(bar, completed=done, total=total,
                            loss="-" if loss is None else f"{loss:.4f}")

        return run_train(cfg, progress=step, on_lengths=lengths)


def print_summary(result) -> None:  # noqa: ANN001 - TrainResult
    table = Table(title=f"Loss per epoch ({escape(str(result.out))})")
    table.add_column("epoch", justify="right")
    table.add_column("train loss", justify="right")
    table.add_column("validation loss", justify="right")
    for e in result.losses:
        table.add_row(f"{e.epoch:g}", "-" if e.train_loss is None else f"{e.train_loss:.4f}",
                      "-" if e.validation_loss is None else f"{e.validation_loss:.4f}")
    console.print(table)
    first = "-" if result.first_loss is None else f"{result.first_loss:.4f}"
    last = "-" if result.final_loss is None else f"{result.final_loss:.4f}"
    console.print(f"{result.steps} steps, {result.train_records} train / "
                  f"{result.validation_records} validation records; loss {first} -> {last}; "
                  f"{result.tokens_per_s:.0f} tokens/s"
                  + (f"; resumed from {escape(result.resumed_from)}" if result.resumed_from
                     else ""), highlight=False)
    b = result.batching
    if b is not None:
        size = (f"micro-batches of at most {b.tokens_per_batch} tokens ({b.tokens_per_batch_from})"
                if b.mode == "tokens" else "fixed records per micro-batch")
        console.print(f"batching: {b.records_per_step} records per optimizer step over "
                      f"{b.processes} process(es), {size}, {b.layout}; attention: "
                      f"{escape(b.attention_path)}", highlight=False)
    if result.kind == "vision":
        console.print("vision-language model: LoRA on the language model"
                      + (" and the vision tower" if result.vision_tower
                         else " (vision tower frozen)"), highlight=False)
    console.print(f"adapter: {escape(str(result.adapter))}"
                  + (f"  merged: {escape(str(result.merged))}" if result.merged else ""),
                  highlight=False)


def distill(
    config: Path = typer.Argument(..., help="Recipe file (YAML or JSON), see "
                                  "examples/distill.yaml."),
    out: Path | None = typer.Option(None, "--out", help="Override the recipe's out folder."),
    data: str | None = typer.Option(None, "--data", help="Override the data choice: "
                                    "success | all | partial (the rows of Table 2 of the "
                                    "constraint-based evaluation paper)."),
) -> None:
    """Teacher rollouts -> evaluate -> curate -> train -> student rollouts on the same tasks
    -> teacher vs student SR and CSR per site and difficulty, with data statistics.
    Re-running the same recipe resumes where it stopped.

    Example: webtraj distill examples/distill.yaml --data success --out runs/distill-success
    """
    try:
        from webtraj.recipes.distill import REPORT, run_distill
        from webtraj.train.distill_config import load_distill_config
    except ImportError as exc:
        raise fail(f"webtraj distill needs the train extra: pip install 'webtraj[train]' "
                   f"({escape(str(exc))})") from None
    from webtraj.model.errors import InputError

    try:
        cfg = load_distill_config(config, out=str(out) if out else None, data=data)
    except InputError as exc:
        raise fail(escape(str(exc))) from None
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as progress:
        bar = progress.add_task("starting", total=None)

        def stage(name: str) -> None:
            progress.update(bar, description=name, completed=0, total=None)

        def step(done: int, total: int, loss: float | None) -> None:
            progress.update(bar, completed=done, total=total)

        try:
            report = run_distill(cfg, on_stage=stage, train_progress=step)
        except (InputError, ValueError) as exc:
            raise fail(escape(str(exc))) from None
    print_summary(report.train)
    print_data_stats(report.data)
    console.print(comparison_table(report.comparison))
    console.print(f"report: {escape(str(cfg.out / REPORT))}", highlight=False)


def print_data_stats(stats) -> None:  # noqa: ANN001 - DataStats
    table = Table(title=f"Training data ({escape(stats.choice)})")
    table.add_column("")
    table.add_column("count", justify="right")
    table.add_row("teacher trajectories", str(stats.trajectories))
    table.add_row("fully successful (final CSR = 1)", str(stats.successful_trajectories))
    table.add_row("trajectories used", str(stats.used_trajectories))
    for split, n in stats.records.items():
        table.add_row(f"{escape(split)} records", str(n))
    console.print(table)


def comparison_table(cmp) -> Table:  # noqa: ANN001 - Comparison
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    table = Table(title=f"Teacher vs student ({escape(cmp.evaluator)})")
    for col in ("site", "difficulty", "episodes T/S", "SR % teacher", "SR % student",
                "CSR % teacher", "CSR % student", "errors T/S"):
        table.add_column(col, justify="left" if col in ("site", "difficulty") else "right")
    for r in cmp.rows:
        t, s = r.teacher, r.student
        table.add_row(escape(r.site), escape(r.difficulty), f"{t.episodes}/{s.episodes}",
                      pct(t.sr), pct(s.sr), pct(t.csr), pct(s.csr), f"{t.errors}/{s.errors}",
                      style="bold" if r.site == "all" else None)
    return table


def export_sft(
    data: str = typer.Option(..., "--data", help="A Mind2Web file (.json, .jsonl, .parquet), "
                             "a folder of them, or hub:SPLIT."),
    out: Path = typer.Option(..., "--out", help="Folder for train.jsonl / validation.jsonl."),
    seed: int = setting("seed", model=SftExportSettings),
    top_k: int = setting("top_k", model=SftExportSettings),
    neg_groups: int = setting("neg_groups", model=SftExportSettings),
    val_fraction: float = setting("val_fraction", model=SftExportSettings),
    limit: int | None = setting("limit", model=SftExportSettings),
) -> None:
    """Write MindAct's multiple-choice action prediction data (the Mind2Web paper) in chat form, for
    `webtraj train`; the trained model then serves `webtraj mind2web predict` through
    `webtraj llm serve-local`.

    Example: webtraj mind2web export-sft --data data/train --out data/m2w-sft --val-fraction 0.05
    """
    from webtraj.train.mind2web_sft import export_sft as run_export

    try:
        stats, issues = run_export(data, out, SftExportSettings(
            seed=seed, top_k=top_k, neg_groups=neg_groups, val_fraction=val_fraction,
            limit=limit))
    except (FileNotFoundError, ValueError) as exc:
        raise fail(escape(str(exc))) from None
    console.print(f"{stats.steps} steps -> {stats.records.get('train', 0)} train / "
                  f"{stats.records.get('validation', 0)} validation records "
                  f"({stats.positive_groups} with the target, {stats.none_groups} 'none of "
                  f"the above'); skipped {stats.skipped_unparseable} unparseable pages, "
                  f"{stats.skipped_no_positive} steps without their target; wrote "
                  f"{escape(str(out))}", highlight=False)
    if len(issues):
        err_console.print(f"[yellow]{len(issues)} input problem(s)[/]")
        for issue in list(issues)[:10]:
            err_console.print(f"  {issue}", highlight=False, markup=False)
