"""Where the `miniwob` package keeps MiniWoB++'s pages, and which tasks it ships."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from webtraj.model import InputError


def html_dir() -> Path:
    """The package's `html` folder (core/, common/, miniwob/<task>.html, ...)."""
    try:
        import miniwob
    except ImportError:
        raise InputError("the MiniWoB++ suite needs the 'miniwob' extra: "
                         "pip install 'webtraj[miniwob]'", field="suite") from None
    path = Path(miniwob.__file__).parent / "html"
    if not (path / "miniwob").is_dir() or not (path / "core" / "core.js").is_file():
        raise InputError(f"the miniwob package at {path.parent} has no html/miniwob pages",
                         field="suite")
    return path


@cache
def task_names() -> tuple[str, ...]:
    """Every task page the package ships, sorted (e.g. `click-button`)."""
    return tuple(sorted(p.stem for p in (html_dir() / "miniwob").glob("*.html")))


def package_version() -> str:
    from importlib.metadata import version

    return version("miniwob")
