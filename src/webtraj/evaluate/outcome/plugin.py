"""Registers the outcome judges with the evaluate registry."""

from webtraj.evaluate.metrics import Family, Metric, declare
from webtraj.evaluate.outcome import webjudge, webvoyager
from webtraj.evaluate.registry import registry

FAMILY = declare(Family(name="outcome", label="outcome judge",
                        evaluators=("webvoyager", "webjudge"), order=40,
                        value_label="success", metrics=(
    Metric(key="success", label="success", source="success",
           help="share of scored episodes the judge called a success"),)))

if "webvoyager" not in registry:
    registry.register("webvoyager", webvoyager.factory, options=webvoyager.WebVoyagerOptions,
                      help="last k screenshots + answer -> SUCCESS/NOT SUCCESS, n runs")
if "webjudge" not in registry:
    registry.register("webjudge", webjudge.factory, options=webjudge.WebJudgeOptions,
                      help="key points, screenshot relevance, verdict (Online-Mind2Web)")
