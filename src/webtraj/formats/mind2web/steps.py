"""Typed Mind2Web steps: one `M2WStep` per annotated action, with its candidates and
operation (REFERENCE.md §1).

Raw task files, flattened step lines (SeeAct) and Multimodal-Mind2Web parquet rows all become
`M2WStep`, so rankers, predictors and metrics never look at source formats."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from webtraj.model.base import FrozenModel

OPS = ("CLICK", "TYPE", "SELECT")
# The Mind2Web protocol's candidate cut: the stage-1 ranker's best 50 candidates of a step are
# those MindAct chooses among, and a positive ranked below them cannot be predicted (the
# metrics' recall cap). One number for the predictors, the training data and the metrics.
TOP_K = 50


class Candidate(FrozenModel):
    """A candidate element; `attributes` is the decoded JSON of the source string."""

    backend_node_id: str
    tag: str = ""
    attributes: dict[str, str] = Field(default_factory=dict)
    is_original_target: bool | None = None
    is_top_level_target: bool | None = None
    # Ranker position (0 = best) and score, when the data or a ranker provided them.
    rank: int | None = None
    score: float | None = None


class Operation(FrozenModel):
    op: str
    original_op: str | None = None
    value: str = ""


class ScreenshotRef(FrozenModel):
    """Where a screenshot lives; the image itself is never decoded by the loaders."""

    file: str
    row: int | None = None
    path: str | None = None


class M2WStep(FrozenModel):
    annotation_id: str
    action_uid: str
    website: str = ""
    domain: str = ""
    subdomain: str = ""
    confirmed_task: str = ""
    # action_reprs of the steps before this one, oldest first.
    previous_actions: tuple[str, ...] = ()
    operation: Operation
    pos_candidates: tuple[Candidate, ...] = ()
    neg_candidates: tuple[Candidate, ...] = ()
    cleaned_html: str | None = None
    raw_html: str | None = None
    screenshot: ScreenshotRef | None = None
    # Provenance, for error messages: source file and position of the step in it.
    source: str = ""
    index: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.annotation_id, self.action_uid)

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return self.pos_candidates + self.neg_candidates

    @property
    def positive_ids(self) -> tuple[str, ...]:
        return tuple(c.backend_node_id for c in self.pos_candidates)


class LoadIssue(FrozenModel):
    """A malformed step or field, reported instead of aborting the run."""

    file: str
    action_uid: str | None = None
    annotation_id: str | None = None
    field: str | None = None
    message: str
    # True when the step could not be used at all (it was skipped).
    skipped: bool = False

    def __str__(self) -> str:
        where = self.file
        if self.action_uid:
            where += f" action_uid={self.action_uid}"
        if self.field:
            where += f" field={self.field}"
        return f"{where}: {self.message}" + (" (step skipped)" if self.skipped else "")


class IssueLog:
    """Collects `LoadIssue`s; shared by loaders, DOM processing and scoring."""

    def __init__(self) -> None:
        self.items: list[LoadIssue] = []
        # Repeated (annotation_id, action_uid) records dropped by the loader.
        self.duplicates = 0

    def add(self, issue: LoadIssue) -> None:
        self.items.append(issue)

    def report(self, file: str, message: str, *, action_uid: str | None = None,
               annotation_id: str | None = None, field: str | None = None,
               skipped: bool = False) -> None:
        self.add(LoadIssue(file=file, action_uid=action_uid, annotation_id=annotation_id,
                           field=field, message=message, skipped=skipped))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[LoadIssue]:
        return iter(self.items)

    @property
    def skipped_steps(self) -> int:
        return sum(1 for i in self.items if i.skipped)
