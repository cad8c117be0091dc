"""`report.html`: one self-contained page per run. Everything from pages and agents is escaped
(Jinja2 autoescape), screenshots are linked from the run folder."""

from __future__ import annotations

import os
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from webtraj.model.action_text import action_text
from webtraj.report.metrics import RunMetrics, ci_text, csr_evaluator, run_metrics
from webtraj.report.outcomes import aggregate, outcomes
from webtraj.report.plot import step_plot
from webtraj.report.tables import fmt
from webtraj.report.usage import run_usage
from webtraj.store.atomic import write_bytes_atomic
from webtraj.store.queries import IndexReader
from webtraj.store.run_store import TRAJECTORIES, CorruptTrajectory, RunStore

_env = Environment(loader=PackageLoader("webtraj.report", "templates"),
                   autoescape=select_autoescape(default=True, default_for_string=True))
_env.filters["fmt"] = fmt
_env.filters["action"] = action_text
_env.filters["ci"] = ci_text


def metrics_html(metrics: RunMetrics) -> Markup:
    """The run's metric rows as an HTML table (report.html and the viewer's pages)."""
    width = max((len(r.metrics) for r in metrics.rows), default=1)
    return Markup(_env.get_template("metrics.html").render(m=metrics, width=width))


def usage_html(info) -> Markup:  # noqa: ANN001 - RunInfo
    return Markup(_env.get_template("usage.html").render(u=run_usage(info)))


def _curve(store: RunStore, trajectory_id: str, evaluator: str | None
           ) -> tuple[float | None, ...] | None:
    """Per-observation CSR (o_0..o_T) of the constraint evaluator, when it judged every step."""
    if evaluator is None:
        return None
    scores = store.scores(trajectory_id, evaluator=evaluator)
    return scores[0].step_values if scores and scores[0].step_values else None


def _site_curves(index: IndexReader, evaluator: str | None) -> list[dict]:
    """Mean CSR at each step index per site: the run's step curve (`IndexReader.step_curve`,
    current scores, finished episodes carried forward) of each site, for the run's headline
    evaluator, the one the overall curve draws."""
    out = []
    for site, curve in index.site_step_curves(evaluator).items():
        values = tuple(mean for _, mean, _ in curve)
        out.append({"site": site, "evaluator": evaluator, "spark": sparkline(values),
                    "first": values[0], "last": values[-1], "steps": len(values),
                    "episodes": curve[0][2]})
    return out


def sparkline(values: tuple[float | None, ...], width: int = 240, height: int = 40) -> str:
    """An inline SVG of a CSR curve (values in [0, 1]; unscored points are skipped). Built
    from numbers only, so nothing from the page can reach the markup."""
    n = len(values)
    step = width / max(n - 1, 1)
    points = [(i * step, height - 4 - v * (height - 8)) for i, v in enumerate(values)
              if v is not None]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2"/>' for x, y in points)
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} '
            f'{height}" role="img" aria-label="CSR per step"><polyline points="{path}"/>'
            f"{dots}</svg>")


def write_report(store: RunStore, path: str | Path | None = None, *,
                 max_trajectories: int = 500) -> Path:
    path = Path(path) if path else store.root / "report.html"
    items = outcomes(store)
    by_id = {o.trajectory_id: o for o in items}
    errors: list[CorruptTrajectory] = []
    details = []
    for traj in store.iter_trajectories(errors=errors):
        if len(details) >= max_trajectories:
            break
        outcome = by_id.get(traj.trajectory_id)
        curve = _curve(store, traj.trajectory_id, outcome.csr_evaluator if outcome else None)
        details.append({"traj": traj, "outcome": outcome, "curve": curve,
                        "spark": sparkline(curve) if curve else None,
                        "folder": f"{TRAJECTORIES}/{traj.trajectory_id}"})
    with IndexReader.open(store.root) as index:
        ev = csr_evaluator(index.evaluators())
        site_curves = _site_curves(index, ev)
        constraints = index.by_constraint(ev)
        plot = step_plot(index.step_curve(ev))
        unscored = index.unscored_reasons()
        metrics = run_metrics(index)
    html = _env.get_template("report.html").render(site_curves=site_curves,
        metrics=metrics_html(metrics), usage=usage_html(store.info),
        constraints=constraints, plot=plot, csr_evaluator=ev, unscored=unscored,
        info=store.info, by_site=aggregate(items, ("site", "difficulty")),
        by_agent=aggregate(items, ("difficulty",)), items=items, details=details,
        corrupt=errors, truncated=len(items) > len(details))
    write_bytes_atomic(path, html.encode())
    # A report is for reading (and sharing): normal permissions, not the temp file's 0600.
    umask = os.umask(0)
    os.umask(umask)
    path.chmod(0o666 & ~umask)
    return path
