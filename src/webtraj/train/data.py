"""Curated chat records (`train.jsonl` / `validation.jsonl` from `webtraj curate` or
`webtraj mind2web export-sft`) -> TRL prompt/completion examples.

The prompt is every message before the last; the completion is the last (assistant) message,
so the loss falls on the answer only. The prompt is rendered by the base model's chat template
with the generation prompt, which is what `serve-local` renders for the same messages.
Nothing is added: a curated record already holds the messages the agent sends (its worked
example included), so training here and training with TRL on the same JSONL agree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from webtraj.model.errors import InputError
from webtraj.train.config import LengthReport

ROLES = ("system", "user", "assistant")


@dataclass
class Example:
    line: int
    prompt: list[dict[str, str]]
    completion: list[dict[str, str]]


def _check_messages(msgs: Any, file: Path, line: int) -> list[dict[str, str]]:
    if not isinstance(msgs, list) or len(msgs) < 2:
        raise InputError("expected a list of at least two messages", file=file, record=line,
                         field="messages")
    out = []
    for i, m in enumerate(msgs):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            raise InputError("a message must be an object", file=file, record=line, field=where)
        if m.get("role") not in ROLES:
            raise InputError(f"role must be one of {', '.join(ROLES)}, got {m.get('role')!r}",
                             file=file, record=line, field=f"{where}.role")
        if not isinstance(m.get("content"), str):
            raise InputError("content must be a string", file=file, record=line,
                             field=f"{where}.content")
        out.append({"role": m["role"], "content": m["content"]})
    if out[-1]["role"] != "assistant":
        raise InputError("the last message must be the assistant's answer", file=file,
                         record=line, field=f"messages[{len(out) - 1}].role")
    return out


def read_split(path: Path) -> list[Example]:
    """All records of one JSONL file; a bad record stops with its file, line and field."""
    if not path.exists():
        return []
    out = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                rec = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc}", file=path, record=n) from None
            if not isinstance(rec, dict):
                raise InputError("expected a JSON object", file=path, record=n)
            msgs = _check_messages(rec.get("messages"), path, n)
            out.append(Example(line=n, prompt=msgs[:-1], completion=msgs[-1:]))
    return out


def token_length(tokenizer: Any, ex: Example) -> int:
    ids = tokenizer.apply_chat_template(ex.prompt + ex.completion, tokenize=True)
    if isinstance(ids, dict) or hasattr(ids, "keys"):
        ids = ids["input_ids"]
    return len(ids)


def cut_long(tokenizer: Any, split: str, examples: list[Example], max_length: int
             ) -> tuple[list[Example], list[int], LengthReport]:
    """Leave out records longer than max_length (a cut answer would teach a cut action);
    returns the kept examples, their lengths and the report."""
    kept, lengths, cut = [], [], []
    longest = 0
    for ex in examples:
        n = token_length(tokenizer, ex)
        longest = max(longest, n)
        if n > max_length:
            cut.append(ex.line)
        else:
            kept.append(ex)
            lengths.append(n)
    report = LengthReport(split=split, records=len(examples), kept=len(kept), cut=len(cut),
                          longest=longest, max_length=max_length, examples=tuple(cut[:10]))
    return kept, lengths, report


def to_rows(examples: list[Example]) -> list[dict[str, Any]]:
    return [{"prompt": e.prompt, "completion": e.completion} for e in examples]
