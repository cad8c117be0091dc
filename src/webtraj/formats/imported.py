"""What the trajectory importers hand back: a trajectory with its artifacts, and a log of
the input problems met on the way, so a batch import can report them and go on."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from webtraj.model import InputError, Trajectory

# File contents (bytes) or a file to copy (Path), keyed by name inside the trajectory folder.
ImportArtifacts = dict[str, bytes | Path]


class WrongFormat(InputError):
    """The input is not in the format the importer reads (a file of another tool): the
    message says which format was expected. An import whose every input is of another format
    is a usage error, not an empty import."""


@dataclass(frozen=True)
class Imported:
    trajectory: Trajectory
    artifacts: ImportArtifacts = field(default_factory=dict)


@dataclass
class ImportLog:
    """Errors skipped a record (a file, a history entry, a task folder); warnings kept the
    record but lost part of it (a screenshot that would not decode)."""

    errors: list[InputError] = field(default_factory=list)
    warnings: list[InputError] = field(default_factory=list)

    def error(self, message: str, *, file: str | Path | None = None,
              record: str | int | None = None, field: str | None = None) -> InputError:
        exc = InputError(message, file=file, record=record, field=field)
        self.errors.append(exc)
        return exc

    def warn(self, message: str, *, file: str | Path | None = None,
             record: str | int | None = None, field: str | None = None) -> InputError:
        exc = InputError(message, file=file, record=record, field=field)
        self.warnings.append(exc)
        return exc


def image_name(index: int, data: bytes) -> str:
    """`step-NNN.png` (or `.jpg` for JPEG bytes): the name the episode runner uses too."""
    ext = "jpg" if data[:3] == b"\xff\xd8\xff" else "png"
    return f"step-{index:03d}.{ext}"
