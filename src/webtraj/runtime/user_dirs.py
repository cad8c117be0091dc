"""Where webtraj keeps a user's files (XDG base directories), one rule for every kind."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# XDG variable and its fallback under the home folder, by kind.
_XDG = {"cache": ("XDG_CACHE_HOME", ".cache"), "config": ("XDG_CONFIG_HOME", ".config")}


def user_path(kind: str, *parts: str, override: str,
              environ: Mapping[str, str] | None = None) -> Path:
    """`$override` when set, else `<XDG base of kind>/webtraj/<parts>`."""
    env = os.environ if environ is None else environ
    if env.get(override):
        return Path(env[override]).expanduser()
    var, fallback = _XDG[kind]
    base = Path(env[var]) if env.get(var) else Path.home() / fallback
    return base.joinpath("webtraj", *parts)
