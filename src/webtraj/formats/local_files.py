"""Reading the local files an imported record points to, without leaving the import.

A history or log names files by path (`screenshot_path: /etc/hostname`,
`../../../../etc/passwd`, a symlink in a result folder). An importer reads only files that,
with symlinks resolved, lie inside the folders being imported (or folders the user named),
and an image must be an image (its magic bytes), so no other local file is copied into a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from webtraj.model import InputError

# Magic bytes of the image formats a step screenshot may have, and the name suffix used.
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpg"),
)


def image_kind(data: bytes) -> str | None:
    """`png` or `jpg` from the leading bytes, None if the bytes are neither."""
    for magic, kind in _IMAGE_MAGIC:
        if data.startswith(magic):
            return kind
    return None


class LocalFiles:
    """The folders an import may read from; every read checks the resolved path."""

    def __init__(self, roots: Iterable[str | Path]) -> None:
        self.roots = tuple(dict.fromkeys(Path(r).resolve() for r in roots))

    def inside(self, path: Path) -> bool:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # missing, or a symlink loop
            return False
        return any(real == r or real.is_relative_to(r) for r in self.roots)

    def find(self, candidates: Iterable[Path], *, file: str | Path | None = None,
             record: str | int | None = None, field: str | None = None) -> Path | None:
        """The first candidate that is a file inside the roots; None when none exists;
        InputError when one exists only outside the roots."""
        outside: Path | None = None
        for cand in candidates:
            try:
                is_file = cand.is_file()
            except OSError:
                continue
            if not is_file:
                continue
            if self.inside(cand):
                return cand
            outside = outside or cand
        if outside is not None:
            raise InputError(f"{outside} is outside the folders being imported "
                             f"({', '.join(str(r) for r in self.roots)}); not read",
                             file=file, record=record, field=field)
        return None

    def read(self, path: Path, *, file: str | Path | None = None,
             record: str | int | None = None, field: str | None = None) -> bytes:
        """The bytes of a file inside the roots (symlinks resolved), else InputError."""
        if not self.inside(path):
            if path.exists() or path.is_symlink():
                raise InputError(f"{path} is outside the folders being imported "
                                 f"({', '.join(str(r) for r in self.roots)}); not read",
                                 file=file, record=record, field=field)
            raise InputError(f"{path}: no such file", file=file, record=record, field=field)
        try:
            return path.resolve(strict=True).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}", file=file,
                             record=record, field=field) from None

    def read_image(self, path: Path, *, file: str | Path | None = None,
                   record: str | int | None = None, field: str | None = None) -> bytes:
        """Like `read`, and the bytes must be a PNG or JPEG image."""
        data = self.read(path, file=file, record=record, field=field)
        check_image(data, what=str(path), file=file, record=record, field=field)
        return data


def check_image(data: bytes, *, what: str = "screenshot", file: str | Path | None = None,
                record: str | int | None = None, field: str | None = None) -> str:
    """The image kind of `data`, or InputError: a screenshot must be a PNG or JPEG."""
    kind = image_kind(data)
    if kind is None:
        raise InputError(f"{what} is not a PNG or JPEG image", file=file, record=record,
                         field=field)
    return kind
