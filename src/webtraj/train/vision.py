"""Vision-language students: which kind a base model is, loading it with its processor, and
where LoRA goes (the language model's modules by default; the vision tower and its projector
stay frozen unless asked for).

A base is a vision-language model when its config has a vision part (`vision_config`), as
Qwen2.5-VL, LLaVA, Idefics3/SmolVLM and Gemma 3 have; it is loaded with `AutoProcessor` and
`AutoModelForImageTextToText`, the classes TRL's vision-language SFT path takes."""

from __future__ import annotations

from typing import Any, Literal

from webtraj.model.errors import InputError

Kind = Literal["text", "vision"]


def model_kind(base: str) -> Kind:
    """"vision" when the base's config has a vision part, else "text"."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(base)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the model config of {base!r}: {exc}",
                         field="base") from None
    return "vision" if getattr(config, "vision_config", None) is not None else "text"


def load_processor(source: str) -> Any:
    """The model's processor (image processor + tokenizer + chat template)."""
    from transformers import AutoProcessor

    try:
        processor = AutoProcessor.from_pretrained(source)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot load a processor from {source!r}: {exc}",
                         field="base") from None
    tok = getattr(processor, "tokenizer", None)
    if tok is None or not hasattr(processor, "image_processor"):
        raise InputError(f"{source!r} has no image processor and tokenizer", field="base")
    if processor.chat_template is None and tok.chat_template is None:
        raise InputError(f"{source!r} has no chat template; use an instruct model or add "
                         "chat_template.jinja to its folder", field="base")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return processor


def load_model(source: str, **kwargs: Any) -> Any:
    from transformers import AutoModelForImageTextToText

    try:
        return AutoModelForImageTextToText.from_pretrained(source, **kwargs)
    except (OSError, ValueError, ImportError) as exc:
        raise InputError(f"cannot load a vision-language model from {source!r}: {exc}",
                         field="base") from None


def language_prefix(model: Any) -> str:
    """The module path of the language model inside the vision-language model."""
    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] == "language_model" and module is not model:
            return name
    raise InputError(f"{type(model).__name__} has no language_model module; webtraj cannot "
                     "tell its language model from its vision tower", field="base")


def lora_targets(model: Any, targets: tuple[str, ...], vision: bool) -> list[str]:
    """Full names of the modules LoRA adapts: those named in `targets` (or every linear
    layer for `all-linear`) inside the language model, and with `vision` also those of the
    vision tower and projector; never the output head."""
    import torch

    prefix = language_prefix(model) + "."
    head = model.get_output_embeddings()
    out = []
    for name, module in model.named_modules():
        if module is head or not (vision or name.startswith(prefix)):
            continue
        if targets == ("all-linear",):
            if isinstance(module, torch.nn.Linear):
                out.append(name)
        elif name.rsplit(".", 1)[-1] in targets:
            out.append(name)
    if not out:
        raise InputError(f"no module named {', '.join(targets)} in the language model of "
                         f"{type(model).__name__}", field="lora.targets")
    return out
