"""Cost and cache of images (issue 37, point 5): the images' tokens are counted by OpenAI's
tile rule in usage (beside the server's prompt_tokens, which include them); the cache key
holds each image's content hash, so the same text with another screenshot is a miss; the
cache stores replies only, never the image."""

from __future__ import annotations

import base64
import io
import random

from PIL import Image

from webtraj.llm import LLMCache, LLMClient, ModelSpec
from webtraj.llm.images import image_part
from webtraj.llm.messages import user
from webtraj.llm.tokens import estimate_image_tokens
from webtraj.model.usage import ModelUsage, StepUsage, Usage
from webtraj.testing import ScriptedLLMServer


def _png(seed: int) -> bytes:
    """A screenshot-sized image of noise (it does not compress: about 1.7 MB)."""
    out = io.BytesIO()
    noise = random.Random(seed).randbytes(1000 * 563 * 3)
    Image.frombytes("RGB", (1000, 563), noise).save(out, format="PNG", compress_level=1)
    return out.getvalue()


def test_images_are_counted_and_keyed_by_content_and_never_cached(tmp_path):
    red, blue = _png(1), _png(2)
    asks = [user("Where is the square?", [image_part(img)]) for img in (red, red, blue)]
    cache_path = tmp_path / "cache.sqlite"
    with ScriptedLLMServer(default="It is there.") as server:
        client = LLMClient(ModelSpec(base_url=server.base_url, model="scripted"),
                           cache=LLMCache(cache_path))
        replies = [client.chat_many_sync([[a]])[0] for a in asks]
        usage = client.usage().models["scripted"]
        requests = server.request_count
        client.cache.close()
    # The second ask (same text, same image) is a hit; another screenshot is a miss.
    assert [r.cached for r in replies] == [False, True, False] and requests == 2
    per_image = estimate_image_tokens(1000, 563)
    assert per_image == 85 + 170 * 4  # 1000x563: 2 x 2 tiles of 512 pixels
    assert usage.image_tokens == 2 * per_image
    assert usage.prompt_tokens > usage.image_tokens  # the server's figure includes them
    # The cache keeps the reply, never the image (neither its bytes nor its base64).
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for img in (red, blue):
        assert base64.b64encode(img)[100:160] not in stored
        assert img[40:80] not in stored
    assert cache_path.stat().st_size < len(red)


def test_text_only_usage_keeps_its_json():
    assert "image_tokens" not in ModelUsage(prompt_tokens=3).model_dump()
    assert "image_tokens" not in StepUsage(prompt_tokens=3).model_dump()
    both = Usage(models={"m": ModelUsage(image_tokens=765)}).merge(
        Usage(models={"m": ModelUsage(image_tokens=85)}))
    assert both.to_run_usage()["total"]["image_tokens"] == 850
    assert StepUsage.of(Usage(models={"m": ModelUsage(calls=1, image_tokens=85)})
                        ).image_tokens == 85
