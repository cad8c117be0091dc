"""Checks a proposed task must pass before it is kept (the constraint-based evaluation paper's
rules that code can see):
readable dates 1-4 months ahead written "Month DD, YYYY", no payment or log-in, a sane
length. Dates in another readable form are rewritten unless `strict`."""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from webtraj.generate.dates import DateMention, find_dates
from webtraj.generate.window import in_window, window
from webtraj.model.base import FrozenModel
from webtraj.sites.common.dates import long_date

Reason = Literal["invalid_date", "date_not_1_4_months_ahead", "date_format",
                 "payment_or_login", "length"]

CANONICAL = re.compile(r"(January|February|March|April|May|June|July|August|September|"
                       r"October|November|December) \d\d, \d{4}")
_FORBIDDEN = re.compile(
    r"\b(log ?in(to)?|sign ?in|password|credit card|debit card|card number|cvv|"
    r"pay (for|with|now)|make (a|the) payment|complete the (purchase|payment|booking)|"
    r"confirm (the|your) (booking|reservation|purchase)|enter (my|your) (name|address|e-?mail))\b",
    re.I)
MIN_CHARS, MAX_CHARS = 15, 600


class Checked(FrozenModel):
    """A proposal's text after the checks: kept (possibly with rewritten dates) or not."""

    intent: str
    reason: Reason | None = None
    detail: str = ""
    rewritten_dates: int = 0
    dates: tuple[dt.date, ...] = ()


def check_intent(intent: str, today: dt.date, *, strict: bool = False) -> Checked:
    if not MIN_CHARS <= len(intent) <= MAX_CHARS:
        return Checked(intent=intent, reason="length", detail=f"{len(intent)} characters")
    bad = _FORBIDDEN.search(intent)
    if bad:
        return Checked(intent=intent, reason="payment_or_login", detail=bad.group(0))
    invalid: list[str] = []
    mentions = find_dates(intent, anchor=today, invalid=invalid)
    if invalid:
        return Checked(intent=intent, reason="invalid_date", detail=invalid[0])
    yearless = [m for m in mentions if m.kind == "md"]
    if yearless:
        return Checked(intent=intent, reason="date_format",
                       detail=f"{yearless[0].text!r} has no year")
    lo, hi = window(today)
    for m in mentions:
        for d in m.dates:
            if not in_window(d, today):
                return Checked(intent=intent, reason="date_not_1_4_months_ahead",
                               detail=f"{m.text} is not between {lo} and {hi}")
    odd = [m for m in mentions if not CANONICAL.fullmatch(m.text)]
    if odd and strict:
        return Checked(intent=intent, reason="date_format",
                       detail=f"{odd[0].text!r} is not written Month DD, YYYY")
    text = _rewrite(intent, odd) if odd else intent
    return Checked(intent=text, rewritten_dates=len(odd),
                   dates=tuple(d for m in mentions for d in m.dates))


def _rewrite(text: str, mentions: list[DateMention]) -> str:
    for m in sorted(mentions, key=lambda x: -x.start):
        new = long_date(m.date)
        if m.end_date is not None:
            new = f"{new} to {long_date(m.end_date)}"
        text = text[:m.start] + new + text[m.end:]
    return text
