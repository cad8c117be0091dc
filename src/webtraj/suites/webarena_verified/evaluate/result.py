"""An evaluator's verdict: status, score and the assertions that explain it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from webtraj.model import Score


class Status(StrEnum):
    SUCCESS = "success"
    PARTIAL_MATCH = "partial_match"
    FAILURE = "failure"
    ERROR = "error"


class Assertion(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    status: Status = Status.FAILURE
    messages: tuple[str, ...] = ()


class Verdict(BaseModel):
    """One evaluator's result in WebArena-Verified terms."""

    model_config = ConfigDict(frozen=True)

    name: str
    status: Status
    score: float
    assertions: tuple[Assertion, ...] = ()
    error: str | None = None
    expected: JsonValue = None
    actual: JsonValue = None

    @classmethod
    def from_assertions(cls, name: str, assertions: list[Assertion], **kw: Any) -> Verdict:
        if any(a.status is Status.ERROR for a in assertions):
            return cls(name=name, status=Status.ERROR, score=0.0, assertions=tuple(assertions),
                       **kw)
        ok = all(a.status is Status.SUCCESS for a in assertions)
        return cls(name=name, status=Status.SUCCESS if ok else Status.FAILURE,
                   score=1.0 if ok else 0.0, assertions=tuple(assertions), **kw)

    @classmethod
    def failed(cls, name: str, error: str, **kw: Any) -> Verdict:
        return cls(name=name, status=Status.ERROR, score=0.0, error=error, **kw)

    def to_score(self) -> Score:
        """Success/failure become 1.0/0.0; an error is never a score (unscored, error=True)."""
        details: dict[str, JsonValue] = {
            "status": self.status.value,
            "assertions": [a.model_dump(mode="json") for a in self.assertions],
        }
        if self.expected is not None:
            details["expected"] = self.expected
        if self.actual is not None:
            details["actual"] = self.actual
        if self.status is Status.ERROR:
            return Score.unscored(self.name, self.error or "evaluation error", error=True,
                                  details=details)
        return Score(evaluator=self.name, value=self.score, details=details)

    def to_line(self) -> dict[str, Any]:
        """The per-evaluator record of `webtraj eval webarena-verified` output."""
        line: dict[str, Any] = {
            "name": self.name,
            "score": None if self.status is Status.ERROR else self.score,
            "status": self.status.value,
            "assertions": [a.model_dump(mode="json") for a in self.assertions],
        }
        if self.error:
            line["error"] = self.error
        return line
