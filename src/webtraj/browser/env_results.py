"""What the browser environment (`env.py`) returns: observations with screenshot bytes
(`observe`), each step's outcome (`step`) and the episode's result (`close`: the HAR and the
records of `webtraj.model.episode`: blocked requests, dialogs, downloads). The caller decides
where screenshots and traces are stored."""

from __future__ import annotations

from pydantic import Field, JsonValue

from webtraj.model.action import Action
from webtraj.model.base import FrozenModel
from webtraj.model.episode import BlockedRequest, DialogRecord, DownloadRecord
from webtraj.model.trajectory import ElementBox, Observation, PointedElement, StepTimings, Tab


class BrowserObservation(FrozenModel):
    """An observation as captured; `to_observation()` gives the stored model form."""

    url: str
    title: str = ""
    tabs: tuple[Tab, ...] = ()
    axtree: str = ""
    html: str | None = None
    screenshot_png: bytes | None = Field(default=None, repr=False)
    # The screenshot with every id drawn at its box (EnvConfig.set_of_marks), as PNG.
    som_png: bytes | None = Field(default=None, repr=False)
    focused: str | None = None
    last_action_error: str | None = None
    # Why the accessibility tree could not be read (then `axtree` is empty, not a page).
    unreadable: str | None = None
    # Dialogs answered during the action that led here.
    dialogs: tuple[DialogRecord, ...] = ()
    # Every element id present in `axtree` (ids an agent may act on).
    element_ids: tuple[str, ...] = Field(default=(), repr=False)
    # Parsed JSON-LD blocks of the page.
    structured_data: tuple[JsonValue, ...] = Field(default=(), repr=False)
    # Viewport boxes (x, y, width, height) of the main document's elements, by id, as the
    # screenshot shows them.
    element_boxes: dict[str, tuple[float, float, float, float]] = Field(default_factory=dict,
                                                                        repr=False)
    # The last mouse position the page saw (viewport CSS pixels), when it saw one.
    mouse: tuple[float, float] | None = None
    # Device pixels per CSS pixel of the screenshot, when not 1.
    device_pixel_ratio: float | None = None

    def to_observation(self, screenshot: str | None = None,
                       som_screenshot: str | None = None) -> Observation:
        """The model's Observation; `screenshot` (and `som_screenshot`) is where the caller
        stored the image."""
        return Observation(som_screenshot=som_screenshot,
            url=self.url, title=self.title, tabs=self.tabs, axtree=self.axtree, html=self.html,
            screenshot=screenshot, focused=self.focused,
            last_action_error=self.last_action_error, unreadable=self.unreadable,
            structured_data=self.structured_data,
            mouse=self.mouse, device_pixel_ratio=self.device_pixel_ratio,
            boxes={k: tuple(round(v, 1) for v in b)  # type: ignore[misc]
                   for k, b in self.element_boxes.items()} or None)


class StepOutcome(FrozenModel):
    """The outcome of one `step`: the new observation, the action's error (None on success),
    and whether the episode is over (a `stop` action)."""

    observation: BrowserObservation
    error: str | None = None
    done: bool = False
    answer: str | None = None
    duration_s: float = 0.0
    # The acted element's box on the screenshot of the observation the action was taken on.
    element_box: ElementBox | None = None
    # For a mouse action at a point: what was under it (and under a drag's end) before it.
    pointed: tuple[PointedElement, ...] = ()
    # Seconds spent acting, settling and capturing (and the capture's parts).
    timings: StepTimings | None = None
    # The action as it may be stored, when that differs from the one taken: a value typed
    # into a password field masked or named (passwords.py).
    stored_action: Action | None = None


class EpisodeResult(FrozenModel):
    """What remains after `close()`: the HAR file and everything the guards recorded."""

    har_path: str | None = None
    blocked: tuple[BlockedRequest, ...] = ()
    # Tunnels (CONNECT host:port) the allowlist's proxy refused: no URL, and Chromium's own
    # services (autofill, ...) open them too, so they are kept apart from the page's requests.
    refused_tunnels: tuple[BlockedRequest, ...] = ()
    dialogs: tuple[DialogRecord, ...] = ()
    downloads: tuple[DownloadRecord, ...] = ()
    steps: int = 0
    error: str | None = None
