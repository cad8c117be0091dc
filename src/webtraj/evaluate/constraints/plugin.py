"""Registers the `constraints` evaluator with the evaluate registry."""

from webtraj.evaluate.constraints.evaluator import ConstraintsOptions, factory
from webtraj.evaluate.metrics import SR, Family, Metric, declare
from webtraj.evaluate.registry import registry

FAMILY = declare(Family(name="constraints", label="constraints", evaluators=("constraints",),
                        order=10, preferred="constraints:oracle", value_label="CSR", metrics=(
    SR, Metric(key="csr", label="CSR", source="mean",
               help="constraint satisfaction rate: mean share of constraints met"))))

if "constraints" not in registry:
    registry.register("constraints", factory, options=ConstraintsOptions,
                      help="CSR/SR with a rule, llm, vlm or oracle judge (the constraint-based "
                           "evaluation paper)")
