"""serve-local with a vision-language student: image_url parts as data URLs reach the model
(the prompt the server renders is the one training renders, pixels included); remote URLs
and unreadable images get a clear 400."""

from __future__ import annotations

import base64
import io

import httpx
import pytest
import torch


def _data_url(rgb=(220, 30, 30), size=(96, 54)) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, rgb).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@pytest.fixture(scope="module")
def vision_server(vision_trained, vlm_base):
    from webtraj.train.local_model import LocalModel
    from webtraj.train.serve import LocalServer

    _, result, _ = vision_trained
    model = LocalModel(str(vlm_base), result.adapter)
    with LocalServer(model, name="vstudent") as srv:
        yield srv, model


def _chat(srv, content, **body):
    body = {"model": "vstudent", "max_tokens": 6,
            "messages": [{"role": "system", "content": "You act on web pages."},
                         {"role": "user", "content": content}], **body}
    return httpx.post(f"{srv.base_url}/chat/completions", json=body, timeout=120)


def test_serve_local_reads_data_url_images(vision_server):
    srv, _ = vision_server
    text = _chat(srv, [{"type": "text", "text": "TASK: book"}])
    red = _chat(srv, [{"type": "text", "text": "TASK: book"},
                      {"type": "image_url", "image_url": {"url": _data_url()}}])
    assert text.status_code == 200 and red.status_code == 200, red.text
    # The image is 64 tokens in place of its one <image> placeholder.
    assert red.json()["usage"]["prompt_tokens"] == text.json()["usage"]["prompt_tokens"] + 64
    again = _chat(srv, [{"type": "text", "text": "TASK: book"},
                        {"type": "image_url", "image_url": {"url": _data_url()}}])
    assert again.json()["choices"] == red.json()["choices"]  # greedy


def test_serve_local_refuses_remote_and_unreadable_images(vision_server):
    srv, _ = vision_server
    remote = _chat(srv, [{"type": "text", "text": "hi"},
                         {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}])
    assert remote.status_code == 400
    assert "only data URLs" in remote.json()["error"]["message"]
    assert "messages[1].content[1]" in remote.json()["error"]["message"]
    broken = _chat(srv, [{"type": "image_url",
                          "image_url": {"url": "data:image/png;base64,AAAA"}}])
    assert broken.status_code == 400 and "not a readable" in broken.json()["error"]["message"]
    odd = _chat(srv, [{"type": "audio", "data": "x"}])
    assert odd.status_code == 400


def test_the_served_prompt_is_the_trained_prompt(vision_server, vision_data):
    """The prompt part of a record as TRL's vision collator builds it for training (ids and
    pixels) is what serve-local feeds the model for the same messages."""
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    from webtraj.train.data import open_image, read_split, to_vision_dataset, with_images

    _, model = vision_server
    ex = read_split(vision_data / "train.jsonl")[0]
    collate = DataCollatorForVisionLanguageModeling(model.processor, completion_only_loss=True)
    batch = collate([dict(to_vision_dataset([ex])[0])])
    prompt = batch["input_ids"][0][batch["labels"][0] == -100].tolist()
    served = model.prompt_inputs(with_images(ex.prompt, [open_image(p) for p in ex.images]))
    assert served["input_ids"][0].tolist() == prompt
    assert torch.equal(served["pixel_values"], batch["pixel_values"])
