"""A CSR-by-step line plot as inline SVG with axes, ticks and the value at every point. Built
from numbers only (no text from data), so nothing from a page can reach the markup."""

from __future__ import annotations

from markupsafe import Markup


def step_plot(curve: list[tuple[int, float, int]], *, width: int = 640, height: int = 276,
              label: str = "mean CSR") -> Markup | None:
    """`curve`: (step, mean, episodes running at that step). Step 0 is the start page; the
    running episodes are written under each step's tick ("n=")."""
    if not curve:
        return None
    left, right, top, bottom = 48, 16, 16, 56
    pw, ph = width - left - right, height - top - bottom
    last = max(s for s, _, _ in curve)

    def x(step: int) -> float:
        return left + (pw * step / last if last else pw / 2)

    def y(v: float) -> float:
        return top + ph * (1 - v)

    parts = [f'<svg class="plot" width="{width}" height="{height}" viewBox="0 0 {width} '
             f'{height}" role="img" aria-label="{label} by step">']
    for i in range(6):  # y axis: 0.0 .. 1.0
        v = i / 5
        parts.append(f'<line class="grid" x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" '
                     f'y2="{y(v):.1f}"/><text class="tick" x="{left - 6}" y="{y(v) + 4:.1f}" '
                     f'text-anchor="end">{v:.1f}</text>')
    every = max(1, (last + 1) // 12)
    running = {s: n for s, _, n in curve}
    for s in range(0, last + 1, every):
        parts.append(f'<text class="tick" x="{x(s):.1f}" y="{top + ph + 16}" '
                     f'text-anchor="middle">{s}</text>')
        if s in running:
            parts.append(f'<text class="tick n" x="{x(s):.1f}" y="{top + ph + 30}" '
                         f'text-anchor="middle">n={running[s]}</text>')
    parts.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}"/>'
                 f'<line class="axis" x1="{left}" x2="{left + pw}" y1="{top + ph}" '
                 f'y2="{top + ph}"/>')
    parts.append(f'<text class="label" x="{left + pw / 2:.1f}" y="{height - 4}" '
                 f'text-anchor="middle">step (0 = start page); n = episodes still running</text>')
    parts.append(f'<text class="label" x="12" y="{top + ph / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + ph / 2:.1f})">{label}</text>')
    points = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v, _ in curve)
    parts.append(f'<polyline class="line" points="{points}"/>')
    for s, v, n in curve:
        parts.append(f'<circle class="pt" cx="{x(s):.1f}" cy="{y(v):.1f}" r="3">'
                     f"<title>step {s}: {v:.3f}, {n} episodes still running</title></circle>")
        if len(curve) <= 20:
            parts.append(f'<text class="val" x="{x(s):.1f}" y="{y(v) - 7:.1f}" '
                         f'text-anchor="middle">{v:.2f}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
