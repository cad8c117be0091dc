"""WebArena-Verified evaluation: NetworkEventEvaluator and AgentResponseEvaluator.

Semantics follow the reference implementation (ServiceNow/webarena-verified v1.2.3); see
docs/evaluating.md ("WebArena-Verified evaluation") for where webtraj
deliberately differs.
"""

from webtraj.suites.webarena_verified.evaluate.result import Assertion, Status, Verdict
from webtraj.suites.webarena_verified.evaluate.runner import (
    TaskVerdict,
    evaluate_log_dir,
    evaluate_task,
)
from webtraj.suites.webarena_verified.evaluate.sites import SiteUrls

__all__ = ["Assertion", "SiteUrls", "Status", "TaskVerdict", "Verdict", "evaluate_log_dir",
           "evaluate_task"]
