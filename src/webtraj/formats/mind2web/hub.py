"""Loading Multimodal-Mind2Web from the Hugging Face hub (needs network and `datasets`).

Tests never use this path; it streams the split so nothing large sits in memory."""

from __future__ import annotations

from collections.abc import Iterator

from webtraj.formats.mind2web.decode import decode_step
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.model.errors import require_extra

HUB_DATASET = "osunlp/Multimodal-Mind2Web"


def iter_hub(split: str, *, issues: IssueLog, keep_html: bool = True,
             dataset: str = HUB_DATASET) -> Iterator[M2WStep]:
    load_dataset = require_extra("train", "datasets",
                                 feature="loading Mind2Web from the hub").load_dataset
    rows = load_dataset(dataset, split=split, streaming=True)
    for i, row in enumerate(rows):
        row = {k: v for k, v in row.items() if k != "screenshot"}
        step = decode_step(row, task=None, previous_actions=None, issues=issues,
                           file=f"hub:{dataset}/{split}", index=i, keep_html=keep_html)
        if step is not None:
            yield step
