"""The outcome judges' metric family (the registry's table lists the judges)."""

from webtraj.evaluate.metric_families import Family, Metric

FAMILY = Family(name="outcome", label="outcome judge", order=40,
                        value_label="success", metrics=(
    Metric(key="success", label="success", source="success",
           help="share of scored episodes the judge called a success"),))
