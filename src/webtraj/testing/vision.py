"""The scripted server's eyes: read the image a request carries and find coloured targets in
it, so a scripted "vision model" answers from the pixels it was sent (a test then proves the
image is the page's current state, not a stale or blank one).

    def reply(req):
        red = largest(blobs(request_image(req), (255, 0, 0)))
        return f"... ```mouse_click [{red.cx:.0f}] [{red.cy:.0f}]```"

    ScriptedLLMServer(default=reply)

Points are in the pixels of the image received (what a vision model answers). Needs Pillow."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

from webtraj.llm.images import decode_data_url
from webtraj.testing.llm_rules import ScriptedRequest

RGB = tuple[int, int, int]


def request_images(req: ScriptedRequest) -> list[bytes]:
    """The bytes of every data-URL image part of the request, in message order."""
    out = []
    for m in req.messages:
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = part.get("image_url", {})
                if isinstance(url, dict) and isinstance(url.get("url"), str):
                    out.append(decode_data_url(url["url"])[1])
    return out


def request_image(req: ScriptedRequest) -> Any:
    """The last image of the request, decoded (a Pillow RGB image); ValueError if none."""
    from PIL import Image

    images = request_images(req)
    if not images:
        raise ValueError("the request carries no image")
    with Image.open(io.BytesIO(images[-1])) as img:
        return img.convert("RGB")


@dataclass(frozen=True)
class Blob:
    """A connected region of one colour: its bounding box (inclusive) and pixel count."""

    left: int
    top: int
    right: int
    bottom: int
    pixels: int

    @property
    def cx(self) -> float:
        return (self.left + self.right + 1) / 2

    @property
    def cy(self) -> float:
        return (self.top + self.bottom + 1) / 2

    @property
    def width(self) -> int:
        return self.right - self.left + 1

    @property
    def height(self) -> int:
        return self.bottom - self.top + 1


def blobs(image: Any, color: RGB, *, tolerance: int = 24, min_pixels: int = 4,
          region: tuple[int, int, int, int] | None = None) -> list[Blob]:
    """The 4-connected regions of pixels within `tolerance` (per channel) of `color`, largest
    first; `region` (left, top, right, bottom) limits the search."""
    from PIL import ImageChops

    width, height = image.size
    left, top, right, bottom = region or (0, 0, width, height)
    left, top, right, bottom = max(0, left), max(0, top), min(width, right), min(height, bottom)
    bands = image.crop((left, top, right, bottom)).split()
    near = [band.point(lambda v, c=c: 255 if abs(v - c) <= tolerance else 0)
            for band, c in zip(bands, color, strict=True)]
    mask = ImageChops.darker(ImageChops.darker(near[0], near[1]), near[2]).tobytes()
    w = right - left
    hit = {(left + i % w, top + i // w) for i, v in enumerate(mask) if v}
    out = []
    while hit:
        start = hit.pop()
        stack, xs, ys, n = [start], [start[0]], [start[1]], 1
        while stack:
            x, y = stack.pop()
            for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if q in hit:
                    hit.remove(q)
                    stack.append(q)
                    xs.append(q[0])
                    ys.append(q[1])
                    n += 1
        if n >= min_pixels:
            out.append(Blob(min(xs), min(ys), max(xs), max(ys), n))
    return sorted(out, key=lambda b: (-b.pixels, b.top, b.left))


def largest(found: list[Blob]) -> Blob:
    if not found:
        raise ValueError("no region of that colour in the image")
    return found[0]


_AT = re.compile(r"^\s*\[([^\]]+)\].*\(at (-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)\)\s*$")


def element_at(text: str, x: float, y: float) -> str | None:
    """The id of the tree line whose point (`(at x,y)`, in the image's pixels when the prompt
    has an image) is nearest to (x, y): how a scripted model that found its target in the
    image answers by id."""
    best: tuple[float, str] | None = None
    for line in text.splitlines():
        m = _AT.match(line)
        if m:
            d = (float(m.group(2)) - x) ** 2 + (float(m.group(3)) - y) ** 2
            if best is None or d < best[0]:
                best = (d, m.group(1))
    return best[1] if best else None
