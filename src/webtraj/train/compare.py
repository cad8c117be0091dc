"""Teacher vs student on the same tasks, per site and difficulty (the constraint-based evaluation
paper's main table):
SR and CSR of each from the same constraint judge. Episodes that ended in an error or were
not scored are counted apart, never as zeros."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from webtraj.curate.prefix import EPS
from webtraj.model.base import FrozenModel
from webtraj.store import RunStore

ALL = "all"


class Cell(FrozenModel):
    episodes: int = 0
    scored: int = 0
    errors: int = 0
    sr: float | None = None
    csr: float | None = None


class CompareRow(FrozenModel):
    site: str
    difficulty: str
    teacher: Cell
    student: Cell


class Comparison(FrozenModel):
    evaluator: str
    rows: tuple[CompareRow, ...]


def _cells(run: Path, evaluator: str) -> dict[tuple[str, str], Cell]:
    acc: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, [], []])
    with RunStore.open(run) as store:
        for row in store.rows():
            keys = [(row.site or "-", row.difficulty or "-"), (row.site or "-", ALL),
                    (ALL, ALL)]
            scores = store.scores(row.trajectory_id, evaluator=evaluator)
            value = scores[0].value if scores else None
            for k in keys:
                a = acc[k]
                a[0] += 1
                a[1] += int(row.error is not None)
                if value is not None:
                    a[2].append(value)
                    a[3].append(value >= 1 - EPS)
    return {k: Cell(episodes=a[0], errors=a[1], scored=len(a[2]),
                    csr=sum(a[2]) / len(a[2]) if a[2] else None,
                    sr=sum(a[3]) / len(a[3]) if a[3] else None) for k, a in acc.items()}


def _order(key: tuple[str, str]) -> tuple:
    site, diff = key
    rank = {"easy": 0, "medium": 1, "hard": 2, ALL: 9}
    return (site == ALL, site, rank.get(diff, 5), diff)


def compare_runs(teacher: Path, student: Path, evaluator: str) -> Comparison:
    t, s = _cells(teacher, evaluator), _cells(student, evaluator)
    rows = [CompareRow(site=k[0], difficulty=k[1], teacher=t.get(k, Cell()),
                       student=s.get(k, Cell()))
            for k in sorted(set(t) | set(s), key=_order)]
    return Comparison(evaluator=evaluator, rows=tuple(rows))
