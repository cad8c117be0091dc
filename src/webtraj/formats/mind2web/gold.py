"""A Mind2Web task's annotated steps as the `mind2web` evaluator's config, so the gold
travels with the task (WebArena-Verified style) and any trajectory of it can be scored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from webtraj.formats.mind2web.steps import M2WStep

EVALUATOR = "mind2web"


class GoldStep(BaseModel):
    """One annotated step: its operation and the positive candidates (with the ranker's
    rank when the data has one)."""

    model_config = ConfigDict(extra="forbid")
    action_uid: str
    op: str
    original_op: str | None = None
    value: str = ""
    positives: tuple[str, ...] = ()
    ranks: tuple[int | None, ...] = ()


def gold_config(steps: Sequence[M2WStep]) -> dict[str, Any]:
    """The evaluator config of a task whose steps are `steps`, in order."""
    gold = [GoldStep(action_uid=s.action_uid, op=s.operation.op,
                     original_op=s.operation.original_op, value=s.operation.value,
                     positives=tuple(c.backend_node_id for c in s.pos_candidates),
                     ranks=tuple(c.rank for c in s.pos_candidates)) for s in steps]
    return {"evaluator": EVALUATOR,
            "gold": [g.model_dump(mode="json", exclude_defaults=True) for g in gold]}
