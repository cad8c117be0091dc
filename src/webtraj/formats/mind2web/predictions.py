"""Next-action prediction files: one JSON object per line,
`{"annotation_id", "action_uid", "element": backend_node_id | null, "op", "value"}`.
A step with no line has no prediction; `element: null` is a step without a prediction, and
`outcome` (when the predictor says) tells why: the model rejected every candidate, its reply
could not be read, the call failed, ..."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

import orjson
from pydantic import ValidationError, field_validator

from webtraj.formats.mind2web.steps import IssueLog
from webtraj.model.base import FrozenModel

PredKey = tuple[str, str]


class PredictionOutcome(StrEnum):
    """How a step's prediction came about; only `predicted` has an element."""

    PREDICTED = "predicted"
    NONE_OF_THE_ABOVE = "none_of_the_above"  # the model rejected every candidate
    UNPARSEABLE = "unparseable"              # a model reply could not be read as an answer
    NO_CANDIDATES = "no_candidates"          # nothing to choose from on the page
    BAD_PAGE = "bad_page"                    # the step's cleaned_html could not be parsed
    ERROR = "error"                          # the model call (or predictor) failed
    MISSING = "missing"                      # no line for the step in a predictions file


class StepPrediction(FrozenModel):
    annotation_id: str
    action_uid: str
    element: str | None = None
    op: str | None = None
    value: str = ""
    # Free-form extras a predictor wants to keep (raw model output, rounds, cost).
    meta: dict[str, object] | None = None
    # Why the step has (or lacks) a prediction; None in files of other tools.
    outcome: PredictionOutcome | None = None

    @field_validator("element", mode="before")
    @classmethod
    def _id_as_text(cls, v: object) -> object:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("value", mode="before")
    @classmethod
    def _value_text(cls, v: object) -> object:
        return "" if v is None else v

    @property
    def key(self) -> PredKey:
        return (self.annotation_id, self.action_uid)


def read_predictions(path: str | Path, issues: IssueLog | None = None
                     ) -> dict[PredKey, StepPrediction]:
    """Predictions by (annotation_id, action_uid); bad lines are reported and skipped, and
    a repeated key keeps its last line."""
    issues = issues if issues is not None else IssueLog()
    out: dict[PredKey, StepPrediction] = {}
    path = Path(path)
    with path.open("rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                p = StepPrediction.model_validate(orjson.loads(line))
            except (orjson.JSONDecodeError, ValidationError) as exc:
                msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                issues.report(f"{path}:{lineno}", f"bad prediction line: {msg}",
                              skipped=True)
                continue
            out[p.key] = p
    return out


def write_predictions(path: str | Path, predictions: Iterable[StepPrediction]) -> int:
    n = 0
    with Path(path).open("wb") as f:
        for p in predictions:
            f.write(orjson.dumps(p.model_dump(exclude_none=True)) + b"\n")
            n += 1
    return n
