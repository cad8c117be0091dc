"""How a recording observes and how long it may last, declared once: `webtraj record` takes
its options' defaults, bounds and help from these fields. A module of its own so that the
command line reads them without importing the recorder (Playwright)."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel


class RecordSettings(FrozenModel):
    """How a recording observes and how long it may last."""

    idle_ms: int = Field(default=300, ge=50, description="Quiet time after the person's input "
                         "before the page is observed again.")
    timeout_s: float = Field(default=3600.0, description="Seconds per task.")
    html: bool = Field(default=False, description="Keep each step's HTML (needed by "
                       "`webtraj export mind2web`).")
    screenshots: bool = True
