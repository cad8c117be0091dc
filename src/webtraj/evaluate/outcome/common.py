"""What outcome judges share: the screenshots a trajectory stored, and verdict parsing."""

from __future__ import annotations

import re
from pathlib import Path

from webtraj.model.action import action_text
from webtraj.model.trajectory import Trajectory


def screenshots(trajectory: Trajectory, artifacts: Path | None) -> list[Path]:
    """Stored screenshots o_0..o_T in order (missing files are skipped)."""
    if artifacts is None:
        return []
    out = []
    for obs in trajectory.observations:
        if obs.screenshot and (artifacts / obs.screenshot).is_file():
            path = artifacts / obs.screenshot
            if not out or out[-1] != path:
                out.append(path)
    return out


def action_history(trajectory: Trajectory, limit: int = 40) -> str:
    lines = [f"{s.index + 1}. {action_text(s.action)}" for s in trajectory.steps]
    if len(lines) > limit:
        lines = [f"(first {len(lines) - limit} actions omitted)", *lines[-limit:]]
    return "\n".join(lines) or "(no actions)"


def verdict(text: str, label: str, positive: str, negative: str) -> bool | None:
    """The last `Label: <verdict>` line of a reply; None when there is none (a reply that
    only discusses success without the line is not guessed at)."""
    pattern = re.compile(
        rf"{re.escape(label)}\s*[:=]\s*\**\s*({re.escape(negative)}|{re.escape(positive)})\b",
        re.IGNORECASE)
    found = pattern.findall(text or "")
    if not found:
        return None
    return found[-1].lower() == positive.lower()
