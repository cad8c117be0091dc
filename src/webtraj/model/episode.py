"""What the browser environment recorded about an episode besides its steps: requests it
refused, dialogs it answered, downloads the page started, and (for a human demonstration)
how the recorder saw it. Typed fields of the trajectory, written and read as such."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from webtraj.model.base import FrozenModel


class BlockedRequest(FrozenModel):
    """A request (or `goto`) the origin allowlist stopped before it reached the network."""

    url: str
    method: str = "GET"
    resource_type: str = ""
    # "origin" (not in the allowlist), "scheme" (file://, ftp://, ...), "goto", "redirect"
    # (a redirect from an allowed page pointed there), "network" (refused by the allowlist's
    # proxy: a request that escaped interception, such as a speculative prefetch) or "webrtc"
    # (a peer connection the page tried to open; `url` is an ICE server it named, shield.py).
    reason: str
    time: float


class DialogRecord(FrozenModel):
    """A JavaScript dialog that the environment answered on the agent's behalf."""

    kind: str
    message: str
    url: str
    accepted: bool
    time: float
    # True when the page asked for one more dialog than a document may show (shield.py): it
    # was not shown, the page's call threw instead.
    refused: bool = False


class DownloadRecord(FrozenModel):
    """A download the page started. The file lands in the episode's scratch folder
    (`downloads/<file>`) and is dropped with it: a run keeps this record, never the file."""

    url: str
    suggested_filename: str
    # The file's name in the episode's downloads folder; None when it did not complete.
    file: str | None = None
    bytes: int | None = None
    sha256: str | None = None
    error: str | None = None
    time: float
    # Set when the download was cut: the kept file holds its first `cut_at` bytes (none when
    # 0), the rest was never kept; `cut_by` names the cap that cut it (a file's own, or what
    # was left of the episode's).
    cut_at: int | None = None
    cut_by: Literal["file", "episode"] | None = None


class RecordingNotes(FrozenModel):
    """How `webtraj record` saw a human demonstration: observations taken, the idle time it
    waited for, and what it could not read (an observation or input event that failed)."""

    observations: int = Field(ge=0)
    idle_ms: int = Field(ge=0)
    notes: tuple[str, ...] = ()


# Trajectory.metadata keys that held these records (and the agent's model usage) before they
# were typed fields (trajectory schema versions 1-4), with the field each moves to.
LEGACY_METADATA_FIELDS = {"blocked_requests": "blocked_requests",
                          "refused_tunnels": "refused_tunnels",
                          "dialogs": "dialogs", "downloads": "downloads",
                          "recorder": "recording", "llm_usage": "usage"}
