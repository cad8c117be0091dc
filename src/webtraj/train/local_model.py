"""A local Hugging Face causal LM (optionally with a LoRA adapter) that answers chat
messages: the model behind `webtraj llm serve-local`.

The prompt is the tokenizer's chat template with the generation prompt, the very text
`webtraj train` puts before each answer. Decoding is greedy unless a temperature above 0 is
asked for; `max_tokens` and `stop` are honoured, the stop text is not returned (as OpenAI
does). One generation at a time (a lock): the model is not safe to call from two threads."""

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

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        source = str(adapter) if adapter else model_path
        try:
            # The adapter folder holds the tokenizer it was trained with (its chat template).
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
        if self.tokenizer.chat_template is None:
            raise InputError(f"{source!r} has no chat template", field="model")
        self.model = model.to(self.device).eval()
        self._lock = threading.Lock()

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        enc = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                 tokenize=True)
        return list(enc["input_ids"] if hasattr(enc, "keys") else enc)

    def generate(self, messages: list[dict[str, str]], *, max_tokens: int | None = None,
                 temperature: float | None = None, top_p: float | None = None,
                 stop: list[str] | None = None, seed: int | None = None) -> Generation:
        import torch

        ids = self.prompt_ids(messages)
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
            inp = torch.tensor([ids], device=self.device)
            out = self.model.generate(input_ids=inp, attention_mask=torch.ones_like(inp),
                                      **kwargs)
        new = out[0, len(ids):].tolist()
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
        return Generation(text=text if cut is None else text[:cut], prompt_tokens=len(ids),
                          completion_tokens=generated, finish_reason=finish)


def _cut_at_stop(text: str, stop: list[str] | None) -> int | None:
    found = [i for s in stop or () if s and (i := text.find(s)) >= 0]
    return min(found) if found else None
