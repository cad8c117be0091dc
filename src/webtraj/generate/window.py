"""The date window of the constraint-based evaluation paper: task dates lie one to four months
after today."""

from __future__ import annotations

import datetime as dt

from dateutil.relativedelta import relativedelta

MIN_MONTHS = 1
MAX_MONTHS = 4


def window(today: dt.date) -> tuple[dt.date, dt.date]:
    """First and last allowed date (calendar months, so "1 month after Jan 31" is Feb 28)."""
    return today + relativedelta(months=MIN_MONTHS), today + relativedelta(months=MAX_MONTHS)


def in_window(day: dt.date, today: dt.date) -> bool:
    lo, hi = window(today)
    return lo <= day <= hi


def is_stale(day: dt.date, today: dt.date) -> bool:
    """In the past or less than a month ahead: an agent could not book it as written."""
    return day < window(today)[0]


def parse_today(value: str | dt.date | None) -> dt.date:
    """`--today`: an ISO date; unset means the real date."""
    if value is None or value == "":
        return dt.date.today()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value.strip())
