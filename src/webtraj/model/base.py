"""Base classes for webtraj's immutable models and their versioned JSON form."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Self

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from webtraj.model.errors import InputError, from_validation_error

SCHEMA_VERSION = 1
SUPPORTED_SCHEMA_VERSIONS = frozenset({1})


class FrozenModel(BaseModel):
    """Immutable, strict-keyed model: typos in input fail loudly instead of vanishing."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Document(FrozenModel):
    """A top-level object stored on its own; carries `schema_version` so old readers refuse
    files they do not understand instead of misreading them."""

    schema_version: int = SCHEMA_VERSION
    # A document whose form changed writes a newer version and keeps reading the older ones.
    SUPPORTED_VERSIONS: ClassVar[frozenset[int]] = SUPPORTED_SCHEMA_VERSIONS

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v not in cls.SUPPORTED_VERSIONS:
            known = ", ".join(str(x) for x in sorted(cls.SUPPORTED_VERSIONS))
            raise ValueError(
                f"unsupported schema_version {v}: this webtraj reads version {known}; "
                "upgrade webtraj or convert the file"
            )
        return v

    def to_json_bytes(self, *, indent: bool = True) -> bytes:
        opts = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(self.model_dump(mode="json", exclude_none=True), option=opts)

    @classmethod
    def from_json_bytes(
        cls, data: bytes | str, *, file: str | Path | None = None, record: str | int | None = None
    ) -> Self:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", file=file, record=record) from None
        return cls.from_obj(obj, file=file, record=record)

    @classmethod
    def from_obj(
        cls, obj: Any, *, file: str | Path | None = None, record: str | int | None = None
    ) -> Self:
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", file=file, record=record
            )
        try:
            return cls.model_validate(obj)
        except ValidationError as exc:
            raise from_validation_error(exc, file=file, record=record) from None

    @classmethod
    def load(cls, path: str | Path) -> Self:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=path) from None
        return cls.from_json_bytes(data, file=path)
