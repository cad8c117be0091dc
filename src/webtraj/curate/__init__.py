"""Curation (the constraint-based evaluation paper, §2.2): per-step CSR curves, smallest best
prefixes, valid stops,
hindsight relabeling, the two-judge filter and supervised fine-tuning export."""

from webtraj.curate.curve import CSRCurve, curve_from_score
from webtraj.curate.instance import DropReason, Instance, curate_trajectory
from webtraj.curate.prefix import BestPrefix, best_prefix

__all__ = ["BestPrefix", "CSRCurve", "DropReason", "Instance", "best_prefix",
           "curate_trajectory", "curve_from_score"]
