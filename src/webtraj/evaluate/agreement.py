"""Agreement between constraint judges, per constraint name and overall: accuracy, Cohen's
kappa, confusion counts, and the SR/CSR a judge reports against a reference judge's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

from webtraj.model.score import Score


class Confusion(BaseModel):
    """Rows: the judge; columns: the reference. `yes` = constraint met."""

    yes_yes: int = 0
    yes_no: int = 0
    no_yes: int = 0
    no_no: int = 0

    def add(self, judge: bool, ref: bool) -> None:
        if judge and ref:
            self.yes_yes += 1
        elif judge:
            self.yes_no += 1
        elif ref:
            self.no_yes += 1
        else:
            self.no_no += 1

    @property
    def n(self) -> int:
        return self.yes_yes + self.yes_no + self.no_yes + self.no_no

    @property
    def accuracy(self) -> float | None:
        return (self.yes_yes + self.no_no) / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa; None when undefined (both raters constant and equal)."""
        n = self.n
        if not n:
            return None
        po = (self.yes_yes + self.no_no) / n
        pj = (self.yes_yes + self.yes_no) / n
        pr = (self.yes_yes + self.no_yes) / n
        pe = pj * pr + (1 - pj) * (1 - pr)
        if pe >= 1.0:
            return None
        return (po - pe) / (1 - pe)


class PairStats(BaseModel):
    judge: str
    reference: str
    overall: Confusion = Confusion()
    by_constraint: dict[str, Confusion] = {}
    # Checks at every observation, where both judges scored every step (steps=all).
    all_steps: Confusion = Confusion()
    # Checks where one side had no decision (unscored observation or undecided constraint).
    undecided: int = 0
    trajectories: int = 0
    judge_sr: float | None = None
    reference_sr: float | None = None
    judge_csr: float | None = None
    reference_csr: float | None = None

    @property
    def sr_gap(self) -> float | None:
        if self.judge_sr is None or self.reference_sr is None:
            return None
        return self.judge_sr - self.reference_sr

    @property
    def csr_gap(self) -> float | None:
        if self.judge_csr is None or self.reference_csr is None:
            return None
        return self.judge_csr - self.reference_csr

    def summary(self) -> dict:
        def conf(c: Confusion) -> dict:
            return {"n": c.n, "accuracy": c.accuracy, "kappa": c.kappa,
                    "confusion": c.model_dump()}

        return {"judge": self.judge, "reference": self.reference, **conf(self.overall),
                "undecided": self.undecided, "trajectories": self.trajectories,
                "all_steps": conf(self.all_steps),
                "judge_sr": self.judge_sr, "reference_sr": self.reference_sr,
                "sr_gap": self.sr_gap, "judge_csr": self.judge_csr,
                "reference_csr": self.reference_csr, "csr_gap": self.csr_gap,
                "by_constraint": {k: conf(v) for k, v in sorted(self.by_constraint.items())}}


def _add_steps(conf: Confusion, judge: Score, ref: Score) -> None:
    """Per-observation checks of two `steps=all` scores of the same trajectory."""
    a, b = judge.step_checks, ref.step_checks
    if a is None or b is None or len(a) != len(b):
        return
    for ja, rb in zip(a, b, strict=True):
        ref_at = {c.name: c.matching for c in rb}
        for c in ja:
            rm = ref_at.get(c.name)
            if c.matching is not None and rm is not None:
                conf.add(c.matching, rm)


def compare(pairs: Iterable[Mapping[str, Score]], judge: str, reference: str) -> PairStats:
    """`pairs`: per trajectory, scores by evaluator name. Compares the final-observation
    checks of `judge` with those of `reference` where both decided."""
    stats = PairStats(judge=judge, reference=reference)
    by: dict[str, Confusion] = defaultdict(Confusion)
    j_vals: list[float] = []
    r_vals: list[float] = []
    for scores in pairs:
        js, rs = scores.get(judge), scores.get(reference)
        if js is None or rs is None:
            continue
        stats.trajectories += 1
        if js.value is not None and rs.value is not None:
            j_vals.append(js.value)
            r_vals.append(rs.value)
        ref_checks = {c.name: c for c in rs.constraints}
        for c in js.constraints:
            r = ref_checks.get(c.name)
            if r is None or c.matching is None or r.matching is None:
                stats.undecided += 1
                continue
            stats.overall.add(c.matching, r.matching)
            by[c.name].add(c.matching, r.matching)
        _add_steps(stats.all_steps, js, rs)
    stats.by_constraint = dict(by)
    if j_vals:
        stats.judge_csr = sum(j_vals) / len(j_vals)
        stats.reference_csr = sum(r_vals) / len(r_vals)
        stats.judge_sr = sum(v >= 1.0 for v in j_vals) / len(j_vals)
        stats.reference_sr = sum(v >= 1.0 for v in r_vals) / len(r_vals)
    return stats
