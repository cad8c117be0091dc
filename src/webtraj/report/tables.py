"""Rich tables for the terminal."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from webtraj.report.outcomes import aggregate, outcomes
from webtraj.store.run_store import RunStore


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def outcome_table(store: RunStore) -> Table:
    rows = aggregate(outcomes(store), ("site", "difficulty"))
    table = Table(title=f"SR / CSR by site and difficulty ({escape(str(store.root))})")
    for col in ("site", "difficulty", "episodes", "scored", "SR", "CSR", "task score", "errors"):
        table.add_column(col, justify="left" if col in ("site", "difficulty") else "right")
    for r in rows:
        table.add_row(*(escape(str(g)) for g in r.group), str(r.n), str(r.scored), fmt(r.sr),
                      fmt(r.csr), fmt(r.task_score), str(r.errors),
                      style="bold" if r.group[0] == "all" else None)
    return table
