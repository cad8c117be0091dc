"""The `constraints` evaluator's metric family (the registry's table lists the evaluator)."""

from webtraj.evaluate.constraints.evaluator import factory
from webtraj.evaluate.metric_families import SR, Family, Metric

__all__ = ["FAMILY", "factory"]

FAMILY = Family(name="constraints", label="constraints", order=10,
                preferred="constraints:oracle", value_label="CSR", metrics=(
    SR, Metric(key="csr", label="CSR", source="mean",
               help="constraint satisfaction rate: mean share of constraints met")))
