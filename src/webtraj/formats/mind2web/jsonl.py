"""Flattened steps, one JSON object per line (SeeAct's `queries.jsonl`, webtraj exports)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from webtraj.formats.mind2web.decode import decode_step
from webtraj.formats.mind2web.steps import IssueLog, M2WStep


def iter_jsonl(path: Path, *, issues: IssueLog, keep_html: bool = True,
               keep_raw_html: bool = False) -> Iterator[M2WStep]:
    try:
        f = path.open("rb")
    except OSError as exc:
        issues.report(str(path), f"cannot read: {exc.strerror}", skipped=True)
        return
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                issues.report(str(path), f"line {lineno} is not JSON: {exc}", skipped=True)
                continue
            if not isinstance(obj, dict):
                issues.report(str(path), f"line {lineno} is not an object", skipped=True)
                continue
            step = decode_step(obj, task=None, previous_actions=None, issues=issues,
                               file=f"{path}:{lineno}", index=lineno - 1, keep_html=keep_html,
                               keep_raw_html=keep_raw_html)
            if step is not None:
                yield step
