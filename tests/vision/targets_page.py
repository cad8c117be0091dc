"""A page of small coloured targets at known CSS positions, and a scripted vision model that
clicks them in order at the centre of each colour in the image it was sent."""

from __future__ import annotations

import re

from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing.vision import blobs, largest, request_image

# name, colour, CSS box (x, y, width, height): small targets all over the viewport.
TARGETS = (("red", (255, 0, 0), (37, 53, 24, 24)), ("green", (0, 160, 0), (611, 290, 17, 17)),
           ("blue", (0, 0, 255), (1203, 641, 31, 29)), ("magenta", (200, 0, 200),
                                                       (400, 500, 13, 13)),
           ("orange", (255, 140, 0), (900, 100, 40, 14)))
PAGE = ("""<!doctype html><html><head><title>targets</title><style>
body{margin:0;background:#fff;width:1280px;height:720px;overflow:hidden;font:12px sans-serif}
.t{position:absolute}</style></head><body><p id="hits" style="position:absolute;left:300px;
top:20px;margin:0">hits:</p>""" + "".join(
    f'<div class="t" id="{name}" style="left:{x}px;top:{y}px;width:{w}px;height:{h}px;'
    f'background:rgb{rgb}"></div>' for name, rgb, (x, y, w, h) in TARGETS) + """
<script>
document.addEventListener('mousedown', (e) => {
  const hit = e.target.classList.contains('t') ? e.target.id : 'miss';
  document.getElementById('hits').textContent += ' ' + hit;
});
</script></body></html>""").encode()


def vision_model(request) -> str:
    """Clicks the targets in order, each at the centre of its colour in the image sent."""
    text = request.messages[-1]["content"][0]["text"]
    done = len(re.findall(r"^\d+\. mouse_click", text, re.M))
    if done == len(TARGETS):
        return f"All clicked. {ACTION_PHRASE} ```stop []```"
    name, rgb, _ = TARGETS[done]
    spot = largest(blobs(request_image(request), rgb, tolerance=40))
    return (f"The {name} square is at ({spot.cx:.0f}, {spot.cy:.0f}) in the image. "
            f"{ACTION_PHRASE} ```mouse_click [{spot.cx:.0f}] [{spot.cy:.0f}]```")
