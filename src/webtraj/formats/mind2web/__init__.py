"""Mind2Web importers: raw task JSON, flattened step JSONL, Multimodal-Mind2Web parquet."""

from webtraj.formats.mind2web.load import iter_steps, load_steps, source_files
from webtraj.formats.mind2web.steps import (
    OPS,
    Candidate,
    IssueLog,
    LoadIssue,
    M2WStep,
    Operation,
    ScreenshotRef,
)

__all__ = ["OPS", "Candidate", "IssueLog", "LoadIssue", "M2WStep", "Operation",
           "ScreenshotRef", "iter_steps", "load_steps", "source_files"]
