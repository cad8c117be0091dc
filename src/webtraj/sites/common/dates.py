"""Dates as the sites read and write them; every date is relative to a fixable `today`."""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_LONG = re.compile(r"^\s*([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s*$")
_SLASH = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*$")
# Longest date text any form accepts; longer input is rejected before parsing.
MAX_DATE_TEXT = 40


def resolve_today(value: str | dt.date | None) -> dt.date:
    """`today` for a server or a task suite: a fixed ISO date, or the real date."""
    if value is None or value == "":
        return dt.date.today()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value)


def parse_date(text: str) -> dt.date | None:
    """Read `2026-03-12`, `March 12, 2026`, `Mar 12 2026` or `03/12/2026` (US order)."""
    if not text or len(text) > MAX_DATE_TEXT:
        return None
    text = text.strip()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    m = _LONG.match(text)
    if m:
        name = m.group(1).lower()
        month = next((i + 1 for i, full in enumerate(_MONTHS)
                      if len(name) >= 3 and full.startswith(name)), None)
        if month is None:
            return None
        try:
            return dt.date(int(m.group(3)), month, int(m.group(2)))
        except ValueError:
            return None
    m = _SLASH.match(text)
    if m:
        try:
            return dt.date(int(m.group(3)), int(m.group(1)), int(m.group(2)))
        except ValueError:
            return None
    return None


def long_date(d: dt.date) -> str:
    """`March 12, 2026`: the form tasks are written in (the constraint-based evaluation paper)."""
    return f"{d.strftime('%B')} {d.day:02d}, {d.year}"


def day_label(d: dt.date) -> str:
    """Accessible name of a calendar day button, e.g. `March 12, 2026`."""
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def short_date(d: dt.date) -> str:
    """`Thu, Mar 12` for compact page text."""
    return d.strftime("%a, %b ") + str(d.day)
