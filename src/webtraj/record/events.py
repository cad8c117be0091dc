"""What the capture script and the browser report while a person works (typed, validated)."""

from __future__ import annotations

from typing import Literal

from webtraj.model.base import FrozenModel


class ElementInfo(FrozenModel):
    """The element an input event hit, as the capture script saw it."""

    role: str
    name: str = ""
    nth: int = 0
    tag: str = ""
    input_type: str = ""
    raw_tag: str = ""
    # The observation id marked on the element (or around it) when it has no role (`n3`).
    mark: str | None = None
    # Viewport box (x, y, width, height) in CSS pixels: where the screenshot shows it.
    box: tuple[float, float, float, float] | None = None


class PageEvent(FrozenModel):
    """One trusted input event in a recorded document (`time` is the page's wall clock)."""

    type: Literal["click", "drag", "input", "select", "key", "scroll", "focus", "hover"]
    time: float
    target: ElementInfo | None = None
    value: str | None = None
    key: str | None = None
    printable: bool = False
    in_text: bool = False
    x: float | None = None
    y: float | None = None
    # Where a drag was released.
    to_x: float | None = None
    to_y: float | None = None


class HistoryMove(FrozenModel):
    """A main-frame navigation of a tab, classified from the tab's navigation history."""

    kind: Literal["goto", "back", "forward", "follow"]
    url: str
    steps: int = 1
    time: float
