"""What curation decided for one trajectory (the constraint-based evaluation paper, §2.2), kept
with the run so a reader
(the viewer) can show why a trajectory was kept, cut or dropped without redoing curation."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.task import Task


class CurationDecision(FrozenModel):
    trajectory_id: str
    # The curated dataset folder this decision went into, as the curation was given it.
    dataset: str = ""
    judge: str
    second_judge: str | None = None
    kept: bool
    # Why it was dropped (a curate DropReason value) and any detail; None when kept.
    drop_reason: str | None = None
    detail: str = ""
    # C_max, the best prefix end t' and the CSR at the last observation (None when the curve
    # was not usable).
    c_max: float | None = None
    t_best: int | None = None
    final_csr: float | None = None
    # C': the constraints met at o_t', in task order.
    satisfied: tuple[str, ...] = ()
    # The task the records were written against when hindsight relabeling replaced it.
    relabeled_task: Task | None = None
    # One entry per record written: (step index, record kind), e.g. (3, "own_stop").
    records: tuple[tuple[int, str], ...] = ()
    split: str | None = None
    invalid_stops: int = Field(default=0, ge=0)
    curated_at: float | None = None
