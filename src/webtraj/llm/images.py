"""Images for vision models: data URLs, size sniffing from headers, optional downscaling.

Sizes are read from the file header with the standard library. Downscaling needs Pillow
(`pip install 'webtraj[images]'`); it is only imported when an image is larger than asked.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Literal

from webtraj.formats.image_header import image_size, sniff_mime
from webtraj.llm.messages import ImagePart, ImageURL

__all__ = ["data_url", "decode_data_url", "downscale", "fit_image", "image_part",
           "image_size", "sniff_mime"]


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
