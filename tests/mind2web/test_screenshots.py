"""Offline Mind2Web with screenshots (issue 37, point 4): `predict --screenshot` sends each
step's Multimodal-Mind2Web screenshot with every prompt as an image_url part; the image the
scripted server receives decodes to the parquet row's image (size and pixel hash); the
metrics are those of the text-only run when the model ignores the image; data without
screenshots is refused with a clear message; `step_cases` carry the screenshot."""

from __future__ import annotations

import base64
import hashlib
import io
import re

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image
from typer.testing import CliRunner

from mind2web.test_predict import oracle_reply
from webtraj.cli.app import app
from webtraj.formats.mind2web.synthetic import to_parquet_rows
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.vision import request_images

runner = CliRunner()


def _screenshot(row: int) -> bytes:
    """A page-like image that says which row it belongs to in its top-left pixel."""
    img = Image.new("RGB", (800, 500), (250, 250, 250))
    img.putpixel((0, 0), (row, 77, 11))
    img.paste((40 + row * 9 % 200, 90, 160), (50 + row * 7, 60, 300, 120 + row * 5))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _pixels(data: bytes) -> tuple[tuple[int, int], str]:
    with Image.open(io.BytesIO(data)) as img:
        rgb = img.convert("RGB")
        return rgb.size, hashlib.sha256(rgb.tobytes()).hexdigest()


@pytest.fixture()
def multimodal(tmp_path, small_tasks):
    """Multimodal-Mind2Web parquet rows of the small tasks, each with a real screenshot."""
    rows = [r for t in small_tasks[:2] for r in to_parquet_rows(t)][:6]
    for i, r in enumerate(rows):
        r["screenshot"] = {"bytes": _screenshot(i), "path": f"{r['action_uid']}.png"}
    path = tmp_path / "mm" / "test.parquet"
    path.parent.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), str(path), row_group_size=4)
    return path, rows


def _predict(data, out, base_url, *extra):
    r = runner.invoke(app, ["mind2web", "predict", "--data", str(data), "--out", str(out),
                            "--llm", f"base_url={base_url},model=scripted", "--no-cache",
                            "--concurrency", "2", "--top-k", "10", *extra])
    assert r.exit_code == 0, r.output
    return out


def test_the_row_screenshot_reaches_the_model_and_metrics_hold(multimodal, tmp_path):
    data, rows = multimodal
    with ScriptedLLMServer(default=lambda req: oracle_reply(req.last_user)) as srv:
        plain = _predict(data, tmp_path / "plain.jsonl", srv.base_url)
        assert all(r.n_images == 0 for r in srv.requests)
        srv.reset()
        seen = _predict(data, tmp_path / "seen.jsonl", srv.base_url, "--screenshot")
        requests = srv.requests
    assert requests and all(r.n_images == 1 for r in requests)
    for req in requests:
        [sent] = request_images(req)
        size, digest = _pixels(sent)
        with Image.open(io.BytesIO(sent)) as img:
            row = img.convert("RGB").getpixel((0, 0))[0]
        # The image of the step's own row, pixel for pixel (800 px: under the default 1024).
        assert (size, digest) == _pixels(rows[row]["screenshot"]["bytes"])
        assert rows[row]["confirmed_task"] in req.last_user
    metrics = {}
    for name, preds in (("plain", plain), ("seen", seen)):
        out = tmp_path / f"{name}.json"
        r = runner.invoke(app, ["mind2web", "score", "--data", str(data), "--predictions",
                                str(preds), "--out", str(out)])
        assert r.exit_code == 0, r.output
        metrics[name] = orjson.loads(out.read_bytes())
    assert metrics["seen"] == metrics["plain"] and metrics["plain"]["n_steps"] == len(rows)


def test_the_image_is_downscaled_by_the_agents_rule(multimodal, tmp_path):
    from webtraj.llm.images import fit_image

    data, rows = multimodal
    with ScriptedLLMServer(default=lambda req: oracle_reply(req.last_user)) as srv:
        _predict(data, tmp_path / "p.jsonl", srv.base_url, "--screenshot",
                 "--image-max-side", "300", "--limit", "2", "--method", "direct")
        requests = srv.requests
    [sent] = request_images(requests[0])
    assert _pixels(sent)[0] == (300, 188)
    assert sent in {fit_image(r["screenshot"]["bytes"], 300)[0] for r in rows}


def test_data_without_screenshots_is_refused_clearly(raw_dir, tmp_path):
    r = runner.invoke(app, ["mind2web", "predict", "--data", str(raw_dir), "--out",
                            str(tmp_path / "p.jsonl"), "--llm",
                            "base_url=http://127.0.0.1:9/v1,model=m", "--screenshot"])
    assert r.exit_code == 2
    text = " ".join(r.output.split())
    assert "has no screenshot" in text and "Multimodal-Mind2Web" in text
    assert "Traceback" not in r.output


def test_step_cases_carry_the_screenshot(multimodal):
    from webtraj.evaluate.mind2web import step_cases
    from webtraj.formats.mind2web import load_steps

    data, rows = multimodal
    steps = load_steps(data)
    cases = list(step_cases(steps[:3], screenshot_max_side=1024))
    for case, row in zip(cases, rows, strict=False):
        url = case["input"]["screenshot"]
        assert re.match(r"data:image/png;base64,", url)
        got = base64.b64decode(url.split(",", 1)[1])
        assert _pixels(got) == _pixels(row["screenshot"]["bytes"])
    assert "screenshot" not in next(step_cases(steps[:1]))["input"]
