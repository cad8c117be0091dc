"""Which Chromium binary a launch runs (browser/chromium.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webtraj.browser import chromium


def test_headless_takes_the_shell_when_installed(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.delenv("WEBTRAJ_CHROMIUM", raising=False)
    shell = tmp_path / "chromium-headless-shell"
    monkeypatch.setattr(chromium, "HEADLESS_SHELL", str(shell))
    assert chromium.launch_options()["executable_path"] == chromium.FULL_CHROMIUM  # missing
    shell.write_text("#!/bin/sh\n")
    os.chmod(shell, 0o755)
    opts = chromium.launch_options(args=["--x"])
    assert opts["executable_path"] == str(shell) and opts["headless"] is True
    assert opts["args"][-1] == "--x" and "--disable-gpu" in opts["args"]
    headed = chromium.launch_options(headless=False)  # a person's window needs the full one
    assert headed["executable_path"] == chromium.FULL_CHROMIUM and headed["headless"] is False
    monkeypatch.setenv("WEBTRAJ_CHROMIUM", "/opt/mine")
    assert {chromium.launch_options()["executable_path"],
            chromium.launch_options(headless=False)["executable_path"]} == {"/opt/mine"}
