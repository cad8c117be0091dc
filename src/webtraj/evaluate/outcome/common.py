"""What outcome judges share: the screenshots a trajectory stored, and verdict parsing."""

from __future__ import annotations

import re
from pathlib import Path

from webtraj.model.action_text import action_text
from webtraj.model.errors import InputError
from webtraj.model.trajectory import Trajectory
from webtraj.store.files import read_artifact


def screenshots(trajectory: Trajectory, artifacts: Path | None) -> list[bytes]:
    """Stored screenshots o_0..o_T in order, read through `store.files` (missing files, and
    names that are links or leave the trajectory's folder, are skipped)."""
    if artifacts is None:
        return []
    out: list[bytes] = []
    last = None
    for obs in trajectory.observations:
        if not obs.screenshot or obs.screenshot == last:
            continue
        try:
            out.append(read_artifact(artifacts, obs.screenshot))
        except InputError:
            continue
        last = obs.screenshot
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
