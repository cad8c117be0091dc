"""Records with images in the form TRL's SFTTrainer reads for vision-language data.

The agent sends a user turn as OpenAI parts (`text`, then `image_url` with a data URL); a
curated record keeps the same turns with every content a list of parts, each `image_url`
part replaced by `{"type": "image"}` at the same place, and an `images` list naming one
file per image part, in order. Each image is stored once, by content hash, in the dataset's
`images/` folder (`images/<sha256>.png`); the JSONL holds no base64. Every content is a
list, not only the image turn's: TRL puts a string user turn's images in front of it.

`wire_turns` is the inverse (the record as the agent sent it), what the tests compare."""

from __future__ import annotations

import hashlib
from typing import Any

from webtraj.llm.images import data_url, decode_data_url

IMAGES = "images"
_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_MIME = {v: k for k, v in _EXT.items()}


def has_parts(messages: list[dict[str, Any]]) -> bool:
    return any(not isinstance(m["content"], str) for m in messages)


def image_name(mime: str, data: bytes) -> str:
    """The image's file in the dataset: by content hash, so each distinct image is one
    file."""
    ext = _EXT.get(mime)
    if ext is None:
        raise ValueError(f"unsupported image type {mime!r}")
    return f"{IMAGES}/{hashlib.sha256(data).hexdigest()}.{ext}"


def trl_record(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """Wire-form messages -> the record in TRL's vision form and its images (file name,
    bytes) in order."""
    out, images = [], []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            parts = [{"type": "text", "text": content}]
        else:
            parts = []
            for p in content:
                if p["type"] == "image_url":
                    mime, data = decode_data_url(p["image_url"]["url"])
                    images.append((image_name(mime, data), data))
                    parts.append({"type": "image"})
                else:
                    parts.append({"type": "text", "text": p["text"]})
        out.append({"role": m["role"], "content": parts})
    return {"messages": out, "images": [name for name, _ in images]}, images


def wire_turns(record: dict[str, Any], read: Any) -> list[dict[str, Any]]:
    """A record in TRL's vision form -> the turns in wire form (`read(name)` gives an image
    file's bytes): image parts as data URLs, a content of one text part as its string."""
    names = iter(record.get(IMAGES, []))
    out = []
    for m in record["messages"]:
        parts = []
        for p in m["content"]:
            if p["type"] == "image":
                name = next(names)
                mime = _MIME[name.rsplit(".", 1)[1]]
                parts.append({"type": "image_url",
                              "image_url": {"url": data_url(read(name), mime)}})
            else:
                parts.append({"type": "text", "text": p["text"]})
        out.append({"role": m["role"], "content": parts})
    return out
