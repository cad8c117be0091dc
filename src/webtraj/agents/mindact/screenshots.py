"""A Mind2Web step's screenshot as a vision model is sent it (Multimodal-Mind2Web parquet
rows carry one): read from the data (`ScreenshotRef`), downscaled by the one rule of
`llm.images.fit_image` (as the live agent's screenshots are), sent as a data URL beside the
prompt's text, as the Multimodal-Mind2Web cookbook's prediction function does."""

from __future__ import annotations

from webtraj.formats.mind2web.parquet import read_screenshot
from webtraj.formats.mind2web.steps import M2WStep
from webtraj.llm.images import data_url, fit_image
from webtraj.llm.messages import ImagePart, ImageURL
from webtraj.model.errors import InputError

NO_SCREENSHOTS = ("has no screenshot: sending screenshots needs Multimodal-Mind2Web data "
                  "(parquet files with a `screenshot` column); raw JSON and JSONL steps have "
                  "none")


def require_screenshot(step: M2WStep) -> None:
    """Refuse a step whose data has no screenshot at all (the data, not the step, is wrong)."""
    if step.screenshot is None:
        raise InputError(f"step {step.action_uid} {NO_SCREENSHOTS}", file=step.source or None,
                         record=step.index, field="screenshot")


def step_screenshot(step: M2WStep, max_side: int) -> bytes:
    """The image sent for `step`: its screenshot downscaled to `max_side` at most."""
    require_screenshot(step)
    assert step.screenshot is not None
    data = read_screenshot(step.screenshot)
    if not data:
        raise InputError(f"step {step.action_uid}: its screenshot is empty",
                         file=step.screenshot.file, record=step.index, field="screenshot")
    return fit_image(data, max_side)[0]


def screenshot_part(step: M2WStep, max_side: int) -> ImagePart:
    return ImagePart(image_url=ImageURL(url=data_url(step_screenshot(step, max_side))))
