"""Curation decisions in a run's index (table `curation_decisions`): one typed
`CurationDecision` per trajectory and curated dataset, the newest replacing older ones for the
same dataset. Written by curation, read by the viewer; an index without the table has none."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from webtraj.model.curation import CurationDecision
from webtraj.model.errors import InputError
from webtraj.store.migrations import DECISIONS_SCHEMA
from webtraj.store.run_store import INDEX_DB


class DecisionWriter:
    """Decisions of one curation, written as it goes in one transaction that commits when
    the dataset is complete (`commit`) or is rolled back with it (`abort`), so the run never
    shows decisions for a dataset that was not written."""

    def __init__(self, root: Path) -> None:
        self.conn = sqlite3.connect(root / INDEX_DB, timeout=30, isolation_level=None)
        self.conn.executescript(DECISIONS_SCHEMA)
        self.conn.execute("BEGIN IMMEDIATE")

    def add(self, dataset: str, decisions: Iterable[tuple[str, str]]) -> None:
        """(trajectory id, `CurationDecision.model_dump_json(exclude_none=True)` of the
        decision stamped with `dataset`): curation's workers write each decision's stored
        form once, and it is stored as is."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO curation_decisions VALUES (?,?,?)",
            [(tid, dataset, body) for tid, body in decisions])

    def commit(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.close()

    def abort(self) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


def decisions_of(conn: sqlite3.Connection, trajectory_id: str) -> list[CurationDecision]:
    """Every dataset's decision for one trajectory, newest curation first."""
    try:
        rows = conn.execute("SELECT body FROM curation_decisions WHERE trajectory_id = ?",
                            (trajectory_id,)).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
    out = []
    for (body,) in rows:
        try:
            out.append(CurationDecision.model_validate_json(body))
        except ValueError as exc:
            raise InputError(f"stored curation decision cannot be read: {exc}",
                             file=INDEX_DB, record=trajectory_id) from exc
    return sorted(out, key=lambda d: -(d.curated_at or 0.0))
