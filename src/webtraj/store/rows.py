"""A trajectory's row: the one model of "a trajectory in a list", whoever lists it (the
index, the viewer's page, report.html, `runs show`, the harness). The index columns are
always there; each reader fills the parts it reads (current scores, the shown evaluator's
value, model usage) and leaves the rest at their defaults. A view that shows fewer fields
projects the row explicitly (`runs show --json`: `report.run_summary.SUMMARY_ROW_FIELDS`)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from webtraj.model.usage import ModelUsage

# The index columns a row is read from, in the order `from_columns` takes them.
ROW_COLS = ("id, trajectory_id, task_id, site, difficulty, agent, trial, n_steps, error, "
            "termination")


class TrajectoryRow(BaseModel):
    """One trajectory as listed. Field order is the order of every JSON projection."""

    model_config = ConfigDict(frozen=True)

    # The episode, as indexed.
    trajectory_id: str
    task_id: str
    site: str | None = None
    difficulty: str | None = None
    agent: str = ""
    trial: int = 0
    n_steps: int = 0
    error: str | None = None
    termination: str | None = None
    intent: str | None = None
    answer: str | None = None
    # The value of the evaluator a view shows (the run's headline, `report.metrics`), None
    # when unscored, not scored by it, or the episode ended in an error; that evaluator when
    # it scored this trajectory; why it is unscored; whether its score is an evaluator error.
    csr: float | None = None
    csr_evaluator: str | None = None
    unscored_reason: str | None = None
    score_error: bool = False
    # WebArena's rule over every evaluator (`evaluate.trajectory_scoring.task_score`).
    task_score: float | None = None
    # Each evaluator's current value, in the order they first scored the trajectory; None
    # for every evaluator of an episode that ended in an error.
    scores: dict[str, float | None] = Field(default_factory=dict)
    # Read from the trajectory's file: the agent's model usage, each judge's on it, and the
    # episode's wall time.
    usage: ModelUsage | None = None
    judge_usage: dict[str, ModelUsage] = Field(default_factory=dict)
    wall_s: float | None = None
    # The index's row id (joins to score_sets); never shown.
    rowid: int = Field(default=0, exclude=True)

    @classmethod
    def from_columns(cls, r: Sequence, scores: dict[str, float | None] | None = None
                     ) -> TrajectoryRow:
        """A row from the index's ROW_COLS, with `scores` when read (built without
        validation: the index holds them typed, and a run of a million rows is listed)."""
        return cls.model_construct(
            rowid=r[0], trajectory_id=r[1], task_id=r[2], site=r[3], difficulty=r[4],
            agent=r[5], trial=r[6], n_steps=r[7], error=r[8], termination=r[9],
            scores={} if scores is None else scores)
