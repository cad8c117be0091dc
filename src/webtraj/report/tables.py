"""Rich tables for the terminal, made to fit 80 columns: few columns, long text wrapped
(never cut to one shared prefix), metrics one per line."""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from webtraj.llm.usage import PriceTable, Usage
from webtraj.report.metrics import MetricRow, RunMetrics, ci_text, run_metrics
from webtraj.report.usage import RunUsage, run_usage
from webtraj.store.queries import IndexReader, total_of
from webtraj.store.run_store import RunStore


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def metric_lines(row: MetricRow) -> str:
    """Each metric on its own line; its n only where it differs from the row's scored."""
    out = []
    for m in row.metrics:
        if m.value is None:
            out.append(f"{m.label} -")
            continue
        ci = f" [{m.low:.2f}-{m.high:.2f}]" if m.low is not None and m.high is not None else ""
        n = f" n={m.n}" if m.n != row.scored else ""
        out.append(f"{m.label} {m.value:.3f}{ci}{n}")
    return "\n".join(out)


def metrics_table(metrics: RunMetrics, title: str = "metrics") -> Table:
    """One row per evaluator (or family of checks), its metrics with Wilson 95% intervals;
    episodes that ended in an error counted apart, never scored."""
    caption = (f"{metrics.episodes} episodes, {metrics.episode_errors} ended in an error "
               "(never scored); rates with Wilson 95% intervals")
    table = Table(title=title, caption=caption, expand=False)
    # Names kept whole when they are short enough to leave the metrics room (Rich cannot
    # shrink a table below a column's min_width, so no min_width here).
    longest = max((len(r.name) + 2 for r in metrics.rows), default=0)
    table.add_column("evaluator", overflow="fold", no_wrap=longest <= 30)
    for col in ("scored", "unscored", "errors"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("metrics", overflow="fold")
    for r in metrics.rows:
        name = f"  {r.name}" if r.part_of else r.name
        table.add_row(escape(name), str(r.scored), str(r.unscored), str(r.errors),
                      escape(metric_lines(r)), style=None if r.part_of else "bold")
    if not metrics.rows:
        table.add_row("(no scores)", "0", "0", "0", "")
    return table


def site_table(index: IndexReader, metrics: RunMetrics) -> Table | None:
    """The headline evaluator by site and difficulty (episodes with an error apart)."""
    head = metrics.headline
    if head is None or head.part_of is not None or len(head.evaluators) != 1:
        return None
    ev = head.evaluators[0]
    cells = index.by_site_difficulty(ev)
    if len(cells) < 2:
        return None
    success = next((m.label for m in head.metrics if m.key in ("sr", "success")), "success")
    mean = next((m.label for m in head.metrics if m.key == "csr"), "mean")
    table = Table(title=f"{escape(ev)} by site and difficulty")
    for col in ("site", "difficulty", "episodes", "scored", success, mean, "errors"):
        table.add_column(escape(col), justify="left" if col in ("site", "difficulty")
                         else "right", overflow="fold")
    for c in [*cells, total_of(cells)]:
        group = c.group if len(c.group) == 2 else (c.group[0], "")
        sr = "-" if c.sr is None else f"{c.sr:.2f}{ci_text(c.sr, c.scored)}"
        table.add_row(*(escape(g) for g in group), str(c.n), str(c.scored), sr,
                      fmt(c.csr), str(c.errors), style="bold" if c.group == ("all",) else None)
    return table


def usage_table(usage: RunUsage, prices: PriceTable | None = None,
                title: str = "model usage") -> Table | Text | None:
    """Calls, cache hits, tokens, time spent in model calls and (with prices) estimated cost,
    per role and model; the run's wall time below (alone when no model was called)."""
    rows = usage.rows(prices)
    if not rows:
        return (Text(f"wall time {usage.wall_s:.1f}s, no model calls")
                if usage.wall_s is not None else None)
    caption = f"wall time {usage.wall_s:.1f}s" if usage.wall_s is not None else None
    table = Table(title=title, caption=caption)
    table.add_column("role/model", overflow="fold")
    for col in ("calls", "cached", "prompt", "completion", "time s", "cost $"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(escape(f"{r.role}/{r.model}"), str(r.usage.calls),
                      str(r.usage.cache_hits), str(r.usage.prompt_tokens),
                      str(r.usage.completion_tokens), f"{r.usage.latency_s:.1f}",
                      "-" if r.cost_usd is None else f"{r.cost_usd:.4f}")
    return table


def usage_of(u: Usage, role: str, prices: PriceTable | None = None) -> Table | Text | None:
    return usage_table(RunUsage(roles={role: u}), prices)


def run_tables(store: RunStore, prices: PriceTable | None = None) -> Group:
    """What a finished run prints: its metrics, the headline by site and difficulty, and its
    model usage."""
    with IndexReader.open(store.root) as index:
        metrics = run_metrics(index)
        parts: list = [metrics_table(metrics, title=f"metrics ({escape(store.root.name)})")]
        sites = site_table(index, metrics)
    if sites is not None:
        parts.append(sites)
    usage = usage_table(run_usage(store.info), prices)
    if usage is not None:
        parts.append(usage)
    return Group(*parts)


def as_text(renderable: object, width: int | None = None) -> str:
    """A Rich renderable as the plain text a terminal of `width` columns (default: this
    one's, else 80) shows: what `print()` of a result writes, the same table the CLI prints."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, highlight=False,
            soft_wrap=False).print(renderable)
    return buffer.getvalue()


def outcome_table(store: RunStore) -> Group:
    """Kept for callers of the older name: the run's tables."""
    return run_tables(store)
