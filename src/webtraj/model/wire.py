"""Models sent to another process (a local worker, a Ray actor): the one path that carries
secrets in clear.

Pydantic's JSON writes a `SecretStr` as `**********`, which is right for everything kept or
shown (run.json, logs, the viewer) and wrong for a worker that must log in with the password:
a worker configuration sent as `model_dump_json()` posted `password=**********`. `to_wire`
writes every `SecretStr` of the model in clear and is used only for the bytes that go into a
pipe or a Ray call; `from_wire` reads them back (the secret is a `SecretStr` again, masked in
the worker's own logs and reprs)."""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, SecretBytes, SecretStr
from pydantic_core import to_jsonable_python

M = TypeVar("M", bound=BaseModel)


def _clear(value: Any) -> Any:
    if isinstance(value, SecretStr | SecretBytes):
        secret = value.get_secret_value()
        return secret.decode() if isinstance(secret, bytes) else secret
    return to_jsonable_python(value)


def to_wire(model: BaseModel) -> bytes:
    """The model as JSON with its secrets in clear: for another process of this run only,
    never for a file, a log or a reply."""
    return orjson.dumps(model.model_dump(mode="python"), default=_clear)


def from_wire(cls: type[M], data: bytes | str) -> M:
    """The model `to_wire` sent."""
    return cls.model_validate_json(data)
