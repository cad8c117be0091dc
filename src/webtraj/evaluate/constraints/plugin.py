"""The `constraints` evaluator's metric family (the registry's table lists the evaluator)."""

from webtraj.evaluate.constraints.evaluator import factory
from webtraj.evaluate.metrics import SR, Family, Metric, declare

__all__ = ["FAMILY", "factory"]

FAMILY = declare(Family(name="constraints", label="constraints", evaluators=("constraints",),
                        order=10, preferred="constraints:oracle", value_label="CSR", metrics=(
    SR, Metric(key="csr", label="CSR", source="mean",
               help="constraint satisfaction rate: mean share of constraints met"))))
