"""One entry point for every Mind2Web source: a file, a directory of files, or `hub:SPLIT`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from webtraj.formats.mind2web.jsonl import iter_jsonl
from webtraj.formats.mind2web.parquet import iter_parquet
from webtraj.formats.mind2web.raw_json import iter_raw_json
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.model.errors import MissingExtra

SUFFIXES = (".json", ".jsonl", ".parquet")


def _natural_key(p: Path) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(p))]


def source_files(path: str | Path) -> list[Path]:
    """Data files under `path` in natural order (`train_2.json` before `train_10.json`)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such file or directory")
    return sorted((p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES),
                  key=_natural_key)


def iter_file(path: Path, *, issues: IssueLog, keep_html: bool = True,
              keep_raw_html: bool = False) -> Iterator[M2WStep]:
    kw = {"issues": issues, "keep_html": keep_html, "keep_raw_html": keep_raw_html}
    if path.suffix == ".parquet":
        return iter_parquet(path, **kw)
    if path.suffix == ".jsonl":
        return iter_jsonl(path, **kw)
    return iter_raw_json(path, **kw)


def iter_steps(source: str | Path, *, issues: IssueLog | None = None, keep_html: bool = True,
               keep_raw_html: bool = False, dedupe: bool = True) -> Iterator[M2WStep]:
    """Stream steps from `source`; malformed ones go to `issues`. With `dedupe`, a step seen
    again (SeeAct writes one line per screenshot window) is dropped after the first."""
    issues = issues if issues is not None else IssueLog()
    if isinstance(source, str) and source.startswith("hub:"):
        from webtraj.formats.mind2web.hub import iter_hub

        yield from iter_hub(source[4:], issues=issues, keep_html=keep_html)
        return
    seen: set[tuple[str, str]] = set()
    root = Path(source).resolve()
    for path in source_files(source):
        real = path.resolve()
        if root.is_dir() and not real.is_relative_to(root):
            issues.report(str(path), f"links to {real}, outside the folder being read; "
                          "not read", skipped=True)
            continue
        if path.stat().st_size == 0:
            issues.report(str(path), "no Mind2Web steps in this file (it is empty)",
                          skipped=True)
            continue
        before, found = len(issues), 0
        try:
            for step in iter_file(path, issues=issues, keep_html=keep_html,
                                  keep_raw_html=keep_raw_html):
                found += 1
                if dedupe:
                    if step.key in seen:
                        issues.duplicates += 1
                        continue
                    seen.add(step.key)
                yield step
        except MissingExtra:
            raise
        except (OSError, ValueError, ImportError) as exc:  # this file only: go on
            issues.report(str(path), f"cannot read: {str(exc).splitlines()[0]}", skipped=True)
            continue
        if found == 0 and len(issues) == before:
            issues.report(str(path), "no Mind2Web steps in this file (it is empty)",
                          skipped=True)


def load_steps(source: str | Path, **kw) -> list[M2WStep]:
    return list(iter_steps(source, **kw))
