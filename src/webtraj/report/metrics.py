"""A run's headline metrics, per evaluator family (`webtraj.evaluate.metrics`), from its
index: one row per evaluator (per family for a grouped family such as WebArena-Verified,
with a row per kind of check under it), each metric with its n and, for a rate, a Wilson 95%
interval. Every surface (end-of-run table, `runs show`, `runs list`, report.html, viewer)
shows these rows.

Counting: an episode that ended in an infrastructure error, or whose score is an evaluator
error, is an *error* of that row; a score the evaluator could not decide is *unscored*; only
the rest is *scored* and enters a metric."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from pydantic import BaseModel

from webtraj.evaluate.metrics import Family, Metric, base_name, family_of, wilson
from webtraj.report import queries as q


class MetricValue(BaseModel):
    key: str
    label: str
    value: float | None
    n: int
    # Wilson 95% interval, for rates.
    low: float | None = None
    high: float | None = None

    def text(self, digits: int = 2) -> str:
        """`0.50 [0.24-0.76] n=10` (or `- n=0`)."""
        if self.value is None:
            return f"{self.label} - (n={self.n})"
        ci = (f" [{self.low:.{digits}f}-{self.high:.{digits}f}]"
              if self.low is not None and self.high is not None else "")
        return f"{self.label} {self.value:.{digits}f}{ci} (n={self.n})"


class MetricRow(BaseModel):
    """One evaluator (or a family of checks taken together) over a run."""

    name: str
    family: str
    family_label: str
    evaluators: list[str]
    # A kind of check listed under its grouped family's row.
    part_of: str | None = None
    # Episodes with a score of this row, and how they split.
    episodes: int
    scored: int
    unscored: int
    errors: int
    metrics: list[MetricValue]

    def metric(self, key: str) -> MetricValue | None:
        return next((m for m in self.metrics if m.key == key), None)


class RunMetrics(BaseModel):
    episodes: int
    # Episodes that ended in an infrastructure error (never part of a metric).
    episode_errors: int
    rows: list[MetricRow]

    @property
    def headline(self) -> MetricRow | None:
        return next((r for r in self.rows if r.part_of is None), None)

    def headline_text(self) -> str:
        """`constraints:oracle SR 0.50 [...] (n=10) · CSR 0.70 (n=10)`, or `no scores`."""
        row = self.headline
        if row is None:
            return "no scores"
        return f"{row.name}: " + " · ".join(m.text() for m in row.metrics)


def ci_text(rate: float | None, n: int) -> str:
    """` [0.34-1.00]`: the Wilson 95% interval of a rate over n, or "" (no rate)."""
    if rate is None or n <= 0:
        return ""
    ci = wilson(round(rate * n), n)
    return f" [{ci[0]:.2f}-{ci[1]:.2f}]" if ci else ""


@dataclass
class _Counts:
    episodes: int = 0
    errors: int = 0
    scored: int = 0
    unscored: int = 0
    success: int = 0
    total: float = 0.0


def _current(conn: sqlite3.Connection) -> str:
    """The current score of each (evaluator, trajectory): evaluator, traj, value, err (the
    episode ended in an error), serr (the score is an evaluator error), body."""
    if q.has_summary(conn):
        return ("SELECT c.evaluator AS evaluator, c.traj AS traj, c.value AS value, "
                "c.err AS err, s.error AS serr, s.body AS body FROM current_scores c "
                "JOIN score_sets s ON s.id = c.score")
    return ("SELECT s.evaluator AS evaluator, s.traj AS traj, s.value AS value, "
            "t.error IS NOT NULL AS err, s.error AS serr, s.body AS body FROM score_sets s "
            "JOIN main.trajectories t ON t.id = s.traj WHERE s.id IN "
            "(SELECT MAX(id) FROM score_sets GROUP BY traj, evaluator)")


def _per_evaluator(conn: sqlite3.Connection, cur: str) -> dict[str, _Counts]:
    out = {}
    for ev, n, errors, scored, unscored, success, total in conn.execute(
            "SELECT evaluator, COUNT(*), SUM(err OR (value IS NULL AND serr)), "
            "SUM(NOT err AND value IS NOT NULL), SUM(NOT err AND value IS NULL AND NOT serr), "
            "SUM(NOT err AND value >= 1.0), SUM(CASE WHEN NOT err THEN value END) "
            f"FROM ({cur}) GROUP BY evaluator"):
        out[ev] = _Counts(n, errors or 0, scored or 0, unscored or 0, success or 0,
                          total or 0.0)
    return out


def _detail(conn: sqlite3.Connection, cur: str, evaluators: list[str], key: str
            ) -> tuple[float, int]:
    marks = ",".join("?" * len(evaluators))
    row = conn.execute(
        "SELECT SUM(x), COUNT(x) FROM (SELECT CASE WHEN typeof(v) IN ('integer', 'real') "
        "THEN v END AS x FROM (SELECT json_extract(body, ?) AS v FROM "
        f"({cur}) WHERE evaluator IN ({marks}) AND NOT err AND value IS NOT NULL "
        "AND body IS NOT NULL))", [f'$.details."{key}"', *evaluators]).fetchone()
    return float(row[0] or 0.0), int(row[1] or 0)


def _all_pass(conn: sqlite3.Connection, cur: str, evaluators: list[str]) -> _Counts:
    """Per episode, every check of the group passed; an episode with an error among its
    checks is an error, one with an unscored check is unscored."""
    marks = ",".join("?" * len(evaluators))
    n, errors, unscored, scored, success = conn.execute(
        "SELECT COUNT(*), SUM(e), SUM(NOT e AND u > 0), SUM(NOT e AND u = 0), "
        "SUM(NOT e AND u = 0 AND p = k) FROM (SELECT MAX(err OR (value IS NULL AND serr)) AS e, "
        "SUM(value IS NULL AND NOT serr) AS u, SUM(value >= 1.0) AS p, COUNT(*) AS k "
        f"FROM ({cur}) WHERE evaluator IN ({marks}) GROUP BY traj)", evaluators).fetchone()
    return _Counts(n or 0, errors or 0, scored or 0, unscored or 0, success or 0)


def _value(m: Metric, c: _Counts, detail: tuple[float, int] | None = None) -> MetricValue:
    if m.source == "detail":
        total, n = detail or (0.0, 0)
        return MetricValue(key=m.key, label=m.label, value=total / n if n else None, n=n)
    if m.source == "mean":
        return MetricValue(key=m.key, label=m.label, n=c.scored,
                           value=c.total / c.scored if c.scored else None)
    ci = wilson(c.success, c.scored)
    return MetricValue(key=m.key, label=m.label, n=c.scored,
                       value=c.success / c.scored if c.scored else None,
                       low=ci[0] if ci else None, high=ci[1] if ci else None)


def _add(a: _Counts, b: _Counts) -> _Counts:
    return _Counts(a.episodes + b.episodes, a.errors + b.errors, a.scored + b.scored,
                   a.unscored + b.unscored, a.success + b.success, a.total + b.total)


def _row(conn: sqlite3.Connection, cur: str, name: str, family: Family, evaluators: list[str],
         counts: _Counts, *, part_of: str | None = None,
         metrics: tuple[Metric, ...] | None = None) -> MetricRow:
    values = []
    for m in metrics if metrics is not None else family.metrics:
        detail = _detail(conn, cur, evaluators, m.detail) if m.source == "detail" else None
        values.append(_value(m, counts, detail))
    return MetricRow(name=name, family=family.name, family_label=family.label,
                     evaluators=evaluators, part_of=part_of, episodes=counts.episodes,
                     scored=counts.scored, unscored=counts.unscored, errors=counts.errors,
                     metrics=values)


def run_metrics(conn: sqlite3.Connection) -> RunMetrics:
    """The metric rows of a run whose index is open (`report.queries.open_index`)."""
    cur = _current(conn)
    per = _per_evaluator(conn, cur)
    episodes, errors = conn.execute(
        "SELECT COUNT(*), SUM(error IS NOT NULL) FROM main.trajectories").fetchone()
    by_family: dict[str, list[str]] = defaultdict(list)
    families: dict[str, Family] = {}
    for ev in per:
        fam = family_of(ev)
        families[fam.name] = fam
        by_family[fam.name].append(ev)
    rows: list[MetricRow] = []
    for fname in sorted(by_family, key=lambda f: (families[f].order, f)):
        fam, names = families[fname], sorted(by_family[fname])
        if not fam.grouped:
            names.sort(key=lambda n: (n != fam.preferred, n))
            rows += [_row(conn, cur, ev, fam, [ev], per[ev]) for ev in names]
            continue
        whole = _all_pass(conn, cur, names)
        checks = _Counts()
        for ev in names:
            checks = _add(checks, per[ev])
        whole.total = float(whole.success)
        group = _row(conn, cur, fam.label, fam, names, whole)
        # "check pass" over every check of every episode, beside the per-episode pass.
        group.metrics = [_value(m, checks) if m.source != "all_pass" else v
                         for m, v in zip(fam.metrics, group.metrics, strict=True)]
        rows.append(group)
        kinds: dict[str, list[str]] = defaultdict(list)
        for ev in names:
            kinds[base_name(ev)].append(ev)
        parts = tuple(m for m in fam.metrics if m.source != "all_pass")
        for kind, evs in sorted(kinds.items()):
            counts = _Counts()
            for ev in evs:
                counts = _add(counts, per[ev])
            rows.append(_row(conn, cur, kind, fam, evs, counts, part_of=fam.label,
                             metrics=parts))
    return RunMetrics(episodes=episodes or 0, episode_errors=errors or 0, rows=rows)
