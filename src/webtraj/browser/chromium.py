"""Launch Debian's Chromium through Playwright; Playwright never downloads a browser here.

A headless launch takes Debian's `chromium-headless-shell` when it is installed: the old
headless shell, the browser Playwright itself runs for `headless=True`, without the full
browser's window layers. On this project's 2-core machines it runs a MiniWoB++ episode in
less than half the CPU time of `chromium --headless` (docs/performance.md). A person's
browser (`webtraj record`, headed or not) is the full one: the shell sometimes sends a page a
mouse move to (0, 0) that no one made. `WEBTRAJ_CHROMIUM` names one binary for every launch."""

from __future__ import annotations

import os
from typing import Any

FULL_CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
# WebRTC may send UDP only through a proxy, which never carries UDP: no STUN, TURN or ICE
# packets leave the browser even if a page gets a peer connection past shield.py.
WEBRTC_ARGS = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
               "--webrtc-ip-handling-policy=disable_non_proxied_udp")
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", *WEBRTC_ARGS)


def chromium_path(*, headless: bool = True) -> str:
    """The binary a launch runs: `WEBTRAJ_CHROMIUM` if set, else the headless shell for a
    headless launch when it is installed, else the full browser."""
    chosen = os.environ.get("WEBTRAJ_CHROMIUM")
    if chosen:
        return chosen
    if headless and os.access(HEADLESS_SHELL, os.X_OK):
        return HEADLESS_SHELL
    return FULL_CHROMIUM


def launch_options(**overrides: Any) -> dict[str, Any]:
    """Keyword arguments for `playwright.chromium.launch`: the system binary and safe flags."""
    headless = bool(overrides.pop("headless", True))
    opts: dict[str, Any] = {"executable_path": chromium_path(headless=headless),
                            "headless": headless, "args": list(CHROMIUM_ARGS)}
    extra = overrides.pop("args", None)
    if extra:
        opts["args"] = [*opts["args"], *extra]
    opts.update(overrides)
    return opts


def launch_chromium(playwright: Any, **overrides: Any) -> Any:
    """`playwright.chromium.launch(...)` with webtraj's options. Works with the sync API
    (returns a Browser) and the async API (returns an awaitable)."""
    return playwright.chromium.launch(**launch_options(**overrides))
