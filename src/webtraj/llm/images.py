"""Images for vision models: data URLs, size sniffing from headers, optional downscaling.

Sizes are read from the file header with the standard library. Downscaling needs Pillow
(`pip install 'webtraj[images]'`); it is only imported when an image is larger than asked.
"""

from __future__ import annotations

import base64
import io
import math
import struct
from pathlib import Path
from typing import Literal

from webtraj.llm.messages import ImagePart, ImageURL

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_mime(data: bytes) -> str:
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise ValueError("not a PNG, JPEG, GIF or WebP image")


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header, or None if the format is not recognised."""
    try:
        if data.startswith(b"\x89PNG") and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data.startswith(b"\xff\xd8"):
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L":
        b = int.from_bytes(data[21:25], "little")
        return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def data_url(data: bytes, mime: str | None = None) -> str:
    mime = mime or sniff_mime(data)
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def decode_data_url(url: str) -> tuple[str, bytes]:
    if not url.startswith("data:") or ";base64," not in url:
        raise ValueError("not a base64 data URL")
    head, _, payload = url.partition(";base64,")
    return head[5:], base64.b64decode(payload)


def downscale(data: bytes, max_side: int) -> bytes:
    """Shrink so the longer side is at most `max_side`, keeping the format where possible."""
    size = image_size(data)
    if size is not None and max(size) <= max_side:
        return data
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("downscaling images needs Pillow: pip install 'webtraj[images]' "
                          "(or do not set a maximum image size)") from None
    with Image.open(io.BytesIO(data)) as img:
        if max(img.size) <= max_side:
            return data
        fmt = img.format or "PNG"
        img.thumbnail((max_side, max_side))
        if fmt == "JPEG" and img.mode not in ("RGB", "L"):
            img = img.convert("RGB")
        out = io.BytesIO()
        img.save(out, format=fmt if fmt in ("PNG", "JPEG", "WEBP", "GIF") else "PNG")
        return out.getvalue()


def image_part(
    source: bytes | str | Path,
    *,
    max_side: int | None = None,
    detail: Literal["auto", "low", "high"] | None = None,
) -> ImagePart:
    """An image content part from bytes, a file path, a data URL or an http(s) URL.
    Remote URLs are passed through untouched (the endpoint fetches them)."""
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        return ImagePart(image_url=ImageURL(url=source, detail=detail))
    if isinstance(source, str) and source.startswith("data:"):
        if max_side is None:
            return ImagePart(image_url=ImageURL(url=source, detail=detail))
        _, data = decode_data_url(source)
    elif isinstance(source, bytes):
        data = source
    else:
        data = Path(source).read_bytes()
    if max_side is not None:
        data = downscale(data, max_side)
    return ImagePart(image_url=ImageURL(url=data_url(data), detail=detail))


def fit_image(data: bytes, max_side: int) -> tuple[bytes, tuple[int, int]]:
    """The image a vision model is sent and its size: `downscale(data, max_side)` (the one
    downscale rule: Pillow's `thumbnail`, aspect kept, the format kept), deterministic for a
    given input and Pillow version, so a prompt rebuilt from a stored screenshot has the same
    bytes as the one sent at run time."""
    out = downscale(data, max_side)
    size = image_size(out)
    if size is None:
        raise ValueError("cannot read the size of the downscaled image")
    return out, size


# OpenAI's published rule for a high-detail image: fit in 2048 x 2048, then the shorter side
# to 768, then 170 tokens per 512-pixel tile plus 85; a low-detail image is 85 tokens.
_TILE, _TILE_TOKENS, _BASE_TOKENS = 512, 170, 85


def image_tokens(width: int, height: int, detail: str | None = "auto") -> int:
    """Prompt tokens of one image by OpenAI's tile rule (what webtraj reports as an image's
    share of a prompt; the server's own `prompt_tokens` stays the billed figure)."""
    if detail == "low" or width <= 0 or height <= 0:
        return _BASE_TOKENS
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        w, h = w * 2048 / max(w, h), h * 2048 / max(w, h)
    if min(w, h) > 768:
        w, h = w * 768 / min(w, h), h * 768 / min(w, h)
    tiles = math.ceil(w / _TILE) * math.ceil(h / _TILE)
    return _TILE_TOKENS * tiles + _BASE_TOKENS
