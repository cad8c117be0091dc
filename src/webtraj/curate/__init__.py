"""Curation (the constraint-based evaluation paper, §2.2): per-step CSR curves, smallest best
prefixes, valid stops, hindsight relabeling, the two-judge filter and supervised fine-tuning
export. One trajectory goes through all of them in `curate.pipeline.curate_trajectories`."""

from webtraj.curate.curve import CSRCurve, curve_from_score
from webtraj.curate.instance import DropReason, Instance
from webtraj.curate.prefix import BestPrefix, best_prefix

__all__ = ["BestPrefix", "CSRCurve", "DropReason", "Instance", "best_prefix",
           "curve_from_score"]
