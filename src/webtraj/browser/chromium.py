"""Launch Debian's Chromium through Playwright; Playwright never downloads a browser here."""

from __future__ import annotations

import os
from typing import Any

CHROMIUM_PATH = os.environ.get("WEBTRAJ_CHROMIUM", "/usr/bin/chromium")
# WebRTC may send UDP only through a proxy, which never carries UDP: no STUN, TURN or ICE
# packets leave the browser even if a page gets a peer connection past shield.py.
WEBRTC_ARGS = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
               "--webrtc-ip-handling-policy=disable_non_proxied_udp")
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", *WEBRTC_ARGS)


def launch_options(**overrides: Any) -> dict[str, Any]:
    """Keyword arguments for `playwright.chromium.launch`: the system binary and safe flags."""
    opts: dict[str, Any] = {"executable_path": CHROMIUM_PATH, "headless": True,
                            "args": list(CHROMIUM_ARGS)}
    extra = overrides.pop("args", None)
    if extra:
        opts["args"] = [*opts["args"], *extra]
    opts.update(overrides)
    return opts


def launch_chromium(playwright: Any, **overrides: Any) -> Any:
    """`playwright.chromium.launch(...)` with webtraj's options. Works with the sync API
    (returns a Browser) and the async API (returns an awaitable)."""
    return playwright.chromium.launch(**launch_options(**overrides))
