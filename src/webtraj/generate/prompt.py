"""The task-writing prompt: the constraint-based evaluation paper's criteria for good tasks, in
webtraj's words."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from webtraj.generate.levels import TARGET_CONSTRAINTS, TARGET_RANGE
from webtraj.generate.sites import SiteInfo
from webtraj.generate.window import window
from webtraj.llm import Message, system, user
from webtraj.model.task import Difficulty
from webtraj.sites.common.dates import long_date

MAX_PREVIOUS = 40  # earlier tasks quoted in the prompt (the rest are still de-duplicated)

SYSTEM = """You write tasks for testing web assistants: requests a real visitor of a website
might hand to an AI assistant that operates the browser for them.

A good task:
1. Is precise: the assistant can carry it out without asking anything back (name the place,
   the dates, how many people, the limits that matter).
2. Differs from the others: vary the goal, the places, the dates, the party, the wording.
   Do not make every task a plain search-box query.
3. Is realistic: something a customer of this site would actually want done.
4. Costs nothing: it ends at finding the right listing, opening its page or adding it to a
   cart; it never pays, books for real or needs a payment card.
5. Needs no personal data: no logging in, no names, addresses, e-mails or phone numbers.
6. States a goal, not clicks: say what the user wants, not which filter, tab or button to
   use; the assistant decides how.
7. Ends on a page: it does not ask the assistant to report anything back; the pages it
   reaches show whether it succeeded.
8. Uses dates only between {first} and {last} (one to four months after today,
   {today}), always written as Month DD, YYYY, for example "{example}".
9. Fits the site: use what this site really offers.

Difficulty is the number of constraints: each explicit requirement the result must meet
counts once (a place, a date, a number of guests, a price limit, an amenity, a class, a
rating...), and asking for one specific listing to be opened or chosen counts once more.
Easy tasks have {easy_lo}-{easy_hi} constraints, medium {medium_lo}-{medium_hi}, hard
{hard_lo}-{hard_hi}."""

REPLY_FORMAT = """Reply with JSON only, in a ```json block:
{"tasks": [{"intent": "the task, one or two sentences",
            "selects_listing": true,
            "constraints": [{"name": "location", "value": "Lisbon", "type": "location"},
                            {"name": "start_date", "value": "June 02, 2026", "type": "date"}]}]}
"selects_listing" is true when the task asks to open or choose one specific listing (and
false for tasks that only ask for a search or a list of results). Each constraint has a
short snake_case name, the value the task states, and a type: text, location, date, number,
boolean or enum."""


def system_prompt(today: dt.date) -> str:
    first, last = window(today)
    r = TARGET_RANGE
    return SYSTEM.format(
        first=long_date(first), last=long_date(last), today=long_date(today),
        example=long_date(first + dt.timedelta(days=17)),
        easy_lo=r[Difficulty.EASY][0], easy_hi=r[Difficulty.EASY][1],
        medium_lo=r[Difficulty.MEDIUM][0], medium_hi=r[Difficulty.MEDIUM][1],
        hard_lo=r[Difficulty.HARD][0], hard_hi=r[Difficulty.HARD][1])


def request_prompt(site: SiteInfo, level: Difficulty, count: int,
                   previous: Sequence[str]) -> str:
    lo, hi = TARGET_RANGE[level]
    lines = [f"Website: {site.name}" + (f" ({site.start_url})" if site.sandbox else "")]
    if site.description:
        lines.append(site.description)
    lines.append("")
    lines.append(f"Write {count} new {level.value} tasks for this website, each with {lo}-{hi} "
                 f"constraints (about {TARGET_CONSTRAINTS[level]:g} on average).")
    if previous:
        lines.append("These tasks exist already; do not repeat or reword them:")
        lines.extend(f"- {p}" for p in list(previous)[-MAX_PREVIOUS:])
    lines.append("")
    lines.append(REPLY_FORMAT)
    return "\n".join(lines)


def messages(site: SiteInfo, level: Difficulty, count: int, previous: Sequence[str],
             today: dt.date) -> list[Message]:
    return [system(system_prompt(today)), user(request_prompt(site, level, count, previous))]
