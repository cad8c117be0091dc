"""Difficulty is the number of constraints (the constraint-based evaluation paper); targets are
BookingArena's averages."""

from __future__ import annotations

from webtraj.model.task import Difficulty

TARGET_CONSTRAINTS = {Difficulty.EASY: 4.0, Difficulty.MEDIUM: 5.5, Difficulty.HARD: 7.3}
TARGET_RANGE = {Difficulty.EASY: (3, 4), Difficulty.MEDIUM: (5, 6), Difficulty.HARD: (7, 8)}


def difficulty_for(n_constraints: int) -> Difficulty:
    """Up to 4 constraints is easy, 5-6 medium, 7 or more hard."""
    if n_constraints <= TARGET_RANGE[Difficulty.EASY][1]:
        return Difficulty.EASY
    if n_constraints <= TARGET_RANGE[Difficulty.MEDIUM][1]:
        return Difficulty.MEDIUM
    return Difficulty.HARD


def parse_levels(text: str) -> tuple[Difficulty, ...]:
    out: list[Difficulty] = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        try:
            level = Difficulty(part)
        except ValueError:
            raise ValueError(f"unknown level {part!r} (easy, medium, hard)") from None
        if level not in out:
            out.append(level)
    if not out:
        raise ValueError("no levels given")
    return tuple(out)
