"""A local Hugging Face causal LM (optionally with a LoRA adapter) that answers chat
messages: the model behind `webtraj llm serve-local`.

The prompt is the tokenizer's chat template with the generation prompt, the very text
`webtraj train` puts before each answer. Decoding is greedy unless a temperature above 0 is
asked for; `max_tokens` and `stop` are honoured, the stop text is not returned (as OpenAI
does). One generation at a time (a lock): the model is not safe to call from two threads.

A vision-language base (see `train.vision`) is loaded with its processor; its messages may
hold image parts (`{"type": "image", "image": PIL image}`), rendered by the processor as
`webtraj train` renders a record's prompt."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError

DEFAULT_MAX_TOKENS = 512


class Generation(FrozenModel):
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end of turn or a stop text) or "length"


class LocalModel:
    def __init__(self, model_path: str, adapter: str | Path | None = None, *,
                 device: str | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from webtraj.train import vision

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        source = str(adapter) if adapter else model_path
        self.kind = vision.model_kind(model_path)
        self.processor: Any = None
        try:
            # The adapter folder holds the tokenizer (or processor) it was trained with.
            if self.kind == "vision":
                self.processor = vision.load_processor(source)
                self.tokenizer = self.processor.tokenizer
                model = vision.load_model(model_path, dtype="auto")
            else:
                self.tokenizer = AutoTokenizer.from_pretrained(source)
                model = AutoModelForCausalLM.from_pretrained(model_path, dtype="auto")
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot load {source!r}: {exc}", field="model") from None
        if adapter:
            from peft import PeftModel

            try:
                model = PeftModel.from_pretrained(model, str(adapter))
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot load the adapter {str(adapter)!r}: {exc}",
                                 field="adapter") from None
        if self.processor is None and self.tokenizer.chat_template is None:
            raise InputError(f"{source!r} has no chat template", field="model")
        self.model = model.to(self.device).eval()
        self._lock = threading.Lock()

    @property
    def reads_images(self) -> bool:
        return self.processor is not None

    def prompt_inputs(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The model's inputs for the prompt (input_ids, and pixel values for images)."""
        import torch

        if self.processor is not None:
            from webtraj.train.data import as_parts

            enc = self.processor.apply_chat_template(
                as_parts(messages), add_generation_prompt=True, tokenize=True,
                return_dict=True, return_tensors="pt")
            return {k: v.to(self.device) for k, v in enc.items()}
        ids = torch.tensor([self.prompt_ids(messages)], device=self.device)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}

    def prompt_ids(self, messages: list[dict[str, Any]]) -> list[int]:
        if self.processor is not None:
            return self.prompt_inputs(messages)["input_ids"][0].tolist()
        enc = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                 tokenize=True)
        return list(enc["input_ids"] if hasattr(enc, "keys") else enc)

    def generate(self, messages: list[dict[str, Any]], *, max_tokens: int | None = None,
                 temperature: float | None = None, top_p: float | None = None,
                 stop: list[str] | None = None, seed: int | None = None) -> Generation:
        import torch

        budget = max_tokens or DEFAULT_MAX_TOKENS
        sample = temperature is not None and temperature > 0
        kwargs: dict[str, Any] = {"max_new_tokens": budget, "do_sample": sample,
                                  "pad_token_id": self.tokenizer.pad_token_id
                                  or self.tokenizer.eos_token_id}
        if sample:
            kwargs["temperature"] = temperature
            if top_p is not None:
                kwargs["top_p"] = top_p
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        if stop:
            kwargs.update(stop_strings=list(stop), tokenizer=self.tokenizer)
        with self._lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            inputs = self.prompt_inputs(messages)
            n_prompt = int(inputs["input_ids"].shape[1])
            out = self.model.generate(**inputs, **kwargs)
        new = out[0, n_prompt:].tolist()
        # Usage counts every generated token, the end-of-turn token included (as vLLM does);
        # the text stops before it.
        generated = len(new)
        eos = self.tokenizer.eos_token_id
        ended = eos is not None and eos in new
        if ended:
            new = new[:new.index(eos)]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        cut = _cut_at_stop(text, stop)
        finish = "stop" if ended or cut is not None else (
            "length" if generated >= budget else "stop")
        return Generation(text=text if cut is None else text[:cut], prompt_tokens=n_prompt,
                          completion_tokens=generated, finish_reason=finish)


def _cut_at_stop(text: str, stop: list[str] | None) -> int | None:
    found = [i for s in stop or () if s and (i := text.find(s)) >= 0]
    return min(found) if found else None
