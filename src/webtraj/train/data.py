"""Curated chat records (`train.jsonl` / `validation.jsonl` from `webtraj curate` or
`webtraj mind2web export-sft`) -> TRL prompt/completion examples.

A record is `{"messages": [...]}` with string contents, or, for a vision-language student,
TRL's vision form: contents as lists of parts (`{"type": "text", "text": ...}` and
`{"type": "image"}`) and an `images` list of files (relative to the JSONL's folder, never
outside it), one per image part, in order.

The prompt is every message before the last; the completion is the last (assistant) message,
so the loss falls on the answer only. The prompt is rendered by the base model's chat template
with the generation prompt, which is what `serve-local` renders for the same messages.
Nothing is added: a curated record already holds the messages the agent sends (its worked
example included), so training here and training with TRL on the same JSONL agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from webtraj.model.errors import InputError
from webtraj.train.config import LengthReport

ROLES = ("system", "user", "assistant")


@dataclass
class Example:
    line: int
    prompt: list[dict[str, Any]]
    completion: list[dict[str, Any]]
    # The image files of the image parts, in order (a vision record).
    images: tuple[Path, ...] = field(default=())

    @property
    def multimodal(self) -> bool:
        """Written in parts (TRL's vision form), with or without images."""
        return bool(self.images) or any(not isinstance(m["content"], str)
                                        for m in self.prompt + self.completion)


def _check_parts(content: list, file: Path, line: int, where: str) -> list[dict[str, str]]:
    out = []
    for j, p in enumerate(content):
        at = f"{where}.content[{j}]"
        if not isinstance(p, dict) or p.get("type") not in ("text", "image"):
            raise InputError("a content part must be {\"type\": \"text\", \"text\": ...} or "
                             "{\"type\": \"image\"}", file=file, record=line, field=at)
        if p["type"] == "text":
            if not isinstance(p.get("text"), str):
                raise InputError("a text part needs a string 'text'", file=file, record=line,
                                 field=f"{at}.text")
            out.append({"type": "text", "text": p["text"]})
        else:
            out.append({"type": "image"})
    return out


def image_parts(messages: list[dict[str, Any]]) -> int:
    return sum(p["type"] == "image" for m in messages if not isinstance(m["content"], str)
               for p in m["content"])


def _check_images(rec: dict, n_parts: int, file: Path, line: int) -> tuple[Path, ...]:
    """The record's image files: as many as image parts, each a file inside the folder."""
    images = rec.get("images", [])
    if not isinstance(images, list) or not all(isinstance(i, str) for i in images):
        raise InputError("'images' must be a list of file paths", file=file, record=line,
                         field="images")
    if len(images) != n_parts:
        raise InputError(f"{len(images)} image(s) for {n_parts} image part(s)", file=file,
                         record=line, field="images")
    root = file.parent.resolve()
    out = []
    for i, rel in enumerate(images):
        path = (root / rel).resolve()
        if not path.is_relative_to(root):
            raise InputError(f"{rel!r} is outside the data folder {root}", file=file,
                             record=line, field=f"images[{i}]")
        if not path.is_file():
            raise InputError(f"no image file {rel!r}", file=file, record=line,
                             field=f"images[{i}]")
        out.append(path)
    return tuple(out)


def _check_messages(msgs: Any, file: Path, line: int) -> list[dict[str, Any]]:
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
        content = m.get("content")
        if isinstance(content, list):
            content = _check_parts(content, file, line, where)
        elif not isinstance(content, str):
            raise InputError("content must be a string or a list of parts", file=file,
                             record=line, field=f"{where}.content")
        out.append({"role": m["role"], "content": content})
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
            images = _check_images(rec, image_parts(msgs), path, n)
            out.append(Example(line=n, prompt=msgs[:-1], completion=msgs[-1:], images=images))
    return out


def token_length(tokenizer: Any, ex: Example) -> int:
    """Tokens of the whole record; a processor (a vision-language model's) counts each
    image's tokens as the model gets them."""
    if hasattr(tokenizer, "image_processor"):
        return vision_length(tokenizer, ex)
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


def as_parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every content as a list of parts (TRL fills image parts in order and would put a
    string user turn's images in front of it)."""
    return [m if not isinstance(m["content"], str)
            else {"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
            for m in messages]


def with_images(messages: list[dict[str, Any]], images: list[Any]) -> list[dict[str, Any]]:
    """The image parts filled with `images` in order (the form processors render)."""
    it = iter(images)
    return [{"role": m["role"], "content": [
        {"type": "image", "image": next(it)} if p["type"] == "image" else p
        for p in m["content"]]} for m in as_parts(messages)]


def open_image(path: Path) -> Any:
    from PIL import Image

    with Image.open(path) as img:
        img.load()
        return img


def vision_length(processor: Any, ex: Example) -> int:
    msgs = with_images(ex.prompt + ex.completion, [open_image(p) for p in ex.images])
    enc = processor.apply_chat_template(msgs, tokenize=True, return_dict=True)
    return len(enc["input_ids"][0] if enc["input_ids"] and isinstance(enc["input_ids"][0], list)
               else enc["input_ids"])


def to_rows(examples: list[Example]) -> list[dict[str, Any]]:
    return [{"prompt": e.prompt, "completion": e.completion} for e in examples]


def to_vision_dataset(examples: list[Example]) -> Any:
    """TRL's vision prompt/completion rows: parts, and the `images` column decoded on
    access (from the files, one record at a time)."""
    from datasets import Dataset, Image, List

    rows = [{"prompt": as_parts(e.prompt), "completion": as_parts(e.completion),
             "images": [str(p) for p in e.images]} for e in examples]
    return Dataset.from_list(rows).cast_column("images", List(Image()))
