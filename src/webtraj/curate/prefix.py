"""Prefix extraction (the constraint-based evaluation paper, §2.2): C_max = max_t CSR(o_t); t' =
the smallest t with
CSR(o_t) = C_max. The prefix is the t' actions a_0..a_{t'-1} that lead from o_0 to o_t'.

Unscored observations (None) are unknown, not 0 or 1: they never count toward C_max and
are never t'. An unscored o_t before t' could in truth have reached C_max sooner; such
prefixes are counted (`unscored_before_best`) so the reader knows how often it happens."""

from __future__ import annotations

from collections.abc import Sequence

from webtraj.model.base import FrozenModel

# CSR values are k/n fractions from one code path, but may pass through JSON: compare with a
# tolerance far below 1/n for any realistic n.
EPS = 1e-9


class BestPrefix(FrozenModel):
    c_max: float
    # t': index of the first observation reaching C_max; the prefix has t' actions.
    t_best: int
    unscored_before_best: int = 0

    @property
    def full(self) -> bool:
        return self.c_max >= 1.0 - EPS


def best_prefix(values: Sequence[float | None]) -> BestPrefix | None:
    """The smallest prefix reaching the best CSR; None when nothing was scored or C_max = 0."""
    scored = [v for v in values if v is not None]
    if not scored:
        return None
    c_max = max(scored)
    if c_max <= EPS:
        return None
    t_best = next(t for t, v in enumerate(values) if v is not None and v >= c_max - EPS)
    unknown = sum(1 for v in values[:t_best] if v is None)
    return BestPrefix(c_max=c_max, t_best=t_best, unscored_before_best=unknown)
