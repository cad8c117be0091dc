"""A run's headline metrics, per evaluator family (`webtraj.evaluate.registry.family_of`),
from its index: one row per evaluator (per family for a grouped family such as WebArena-Verified,
with a row per kind of check under it), each metric with its n and, for a rate, a Wilson 95%
interval. Every surface (end-of-run table, `runs show`, `runs list`, report.html, viewer)
shows these rows.

Counting: an episode that ended in an infrastructure error, or whose score is an evaluator
error, is an *error* of that row; a score the evaluator could not decide is *unscored*; only
the rest is *scored* and enters a metric."""

from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel

from webtraj.evaluate.metric_families import Family, Metric, base_name, wilson
from webtraj.evaluate.registry import family_of, headline_evaluator
from webtraj.store.queries import IndexReader, ScoreCounts


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


def csr_evaluator(names: list[str]) -> str | None:
    """The run's headline evaluator, whose scores the trajectory list, the site table and the
    per-step curves show (`evaluate.registry.headline_evaluator`)."""
    return headline_evaluator(names)


def _value(m: Metric, c: ScoreCounts, detail: tuple[float, int] | None = None) -> MetricValue:
    if m.source == "detail":
        total, n = detail or (0.0, 0)
        return MetricValue(key=m.key, label=m.label, value=total / n if n else None, n=n)
    if m.source == "mean":
        return MetricValue(key=m.key, label=m.label, n=c.scored, value=c.mean)
    ci = wilson(c.success, c.scored)
    return MetricValue(key=m.key, label=m.label, n=c.scored,
                       value=c.success / c.scored if c.scored else None,
                       low=ci[0] if ci else None, high=ci[1] if ci else None)


def _row(index: IndexReader, name: str, family: Family, evaluators: list[str],
         counts: ScoreCounts, *, part_of: str | None = None,
         metrics: tuple[Metric, ...] | None = None) -> MetricRow:
    values = []
    for m in metrics if metrics is not None else family.metrics:
        detail = index.detail_total(evaluators, m.detail) if m.source == "detail" else None
        values.append(_value(m, counts, detail))
    return MetricRow(name=name, family=family.name, family_label=family.label,
                     evaluators=evaluators, part_of=part_of, episodes=counts.episodes,
                     scored=counts.scored, unscored=counts.unscored, errors=counts.errors,
                     metrics=values)


def run_metrics(index: IndexReader) -> RunMetrics:
    """The metric rows of a run whose index is open (`IndexReader.open`)."""
    per = index.evaluator_counts()
    episodes, errors = index.episode_counts()
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
            rows += [_row(index, ev, fam, [ev], per[ev]) for ev in names]
            continue
        whole = index.all_pass_counts(names)
        checks = sum((per[ev] for ev in names), ScoreCounts())
        whole.total = float(whole.success)
        group = _row(index, fam.label, fam, names, whole)
        # "check pass" over every check of every episode, beside the per-episode pass.
        group.metrics = [_value(m, checks) if m.source != "all_pass" else v
                         for m, v in zip(fam.metrics, group.metrics, strict=True)]
        rows.append(group)
        kinds: dict[str, list[str]] = defaultdict(list)
        for ev in names:
            kinds[base_name(ev)].append(ev)
        parts = tuple(m for m in fam.metrics if m.source != "all_pass")
        for kind, evs in sorted(kinds.items()):
            counts = sum((per[ev] for ev in evs), ScoreCounts())
            rows.append(_row(index, kind, fam, evs, counts, part_of=fam.label,
                             metrics=parts))
    return RunMetrics(episodes=episodes, episode_errors=errors, rows=rows)
