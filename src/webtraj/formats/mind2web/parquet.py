"""Multimodal-Mind2Web parquet files (one row per action), read in small row batches with
pyarrow (extra `mind2web`). Screenshots stay in the file: steps carry a `ScreenshotRef`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from webtraj.formats.local_files import LocalFiles
from webtraj.formats.mind2web.decode import decode_step
from webtraj.formats.mind2web.steps import IssueLog, M2WStep, ScreenshotRef
from webtraj.model.errors import require_extra

_BASE_COLUMNS = ("action_uid", "annotation_id", "website", "domain", "subdomain",
                 "confirmed_task", "operation", "pos_candidates", "neg_candidates",
                 "action_reprs", "target_action_index")


def iter_parquet(path: Path, *, issues: IssueLog, keep_html: bool = True,
                 keep_raw_html: bool = False, batch_size: int = 32) -> Iterator[M2WStep]:
    pq = require_extra("mind2web", "pyarrow.parquet", feature="reading Mind2Web parquet files")
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for unreadable files
        issues.report(str(path), f"cannot read parquet: {exc}", skipped=True)
        return
    names = set(pf.schema_arrow.names)
    wanted = [c for c in _BASE_COLUMNS if c in names]
    if keep_html and "cleaned_html" in names:
        wanted.append("cleaned_html")
    if keep_raw_html and "raw_html" in names:
        wanted.append("raw_html")
    has_shot = "screenshot" in names
    row_no = 0
    for batch in pf.iter_batches(batch_size=batch_size, columns=wanted):
        for row in batch.to_pylist():
            shot = ScreenshotRef(file=str(path), row=row_no) if has_shot else None
            step = decode_step(row, task=None, previous_actions=None, issues=issues,
                               file=str(path), index=row_no, keep_html=keep_html,
                               keep_raw_html=keep_raw_html, screenshot=shot)
            row_no += 1
            if step is not None:
                yield step


def read_screenshot(ref: ScreenshotRef) -> bytes | None:
    """The PNG/JPEG bytes a `ScreenshotRef` points to (decoding is left to the caller)."""
    import pyarrow.parquet as pq

    if ref.row is None:
        if not ref.path:
            return None
        # Only files beside the data file: a record never makes us read /etc/passwd.
        return LocalFiles([Path(ref.file).parent]).read(Path(ref.path), file=ref.file,
                                                        field="screenshot")
    pf = pq.ParquetFile(ref.file)
    start = 0
    for rg in range(pf.num_row_groups):
        n = pf.metadata.row_group(rg).num_rows
        if ref.row < start + n:
            cell = pf.read_row_group(rg, columns=["screenshot"]).column(0)[ref.row - start]
            value = cell.as_py()
            if isinstance(value, dict):
                return value.get("bytes")
            return value
        start += n
    return None
