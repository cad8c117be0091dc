"""Whether an episode's start page was reached. A start URL that refuses the connection (a
closed port, a site still restarting after its reset command), fails to resolve, is refused by
the browser (`ERR_UNSAFE_PORT`) or answers as a gateway whose site is down (HTTP 502, 503,
504) leaves the agent on Chromium's error page: an episode there measures the deployment, not
the agent, so it is an infrastructure error (no score, counted apart, retried on resume)
instead of a run on `chrome-error://chromewebdata/` judged 0.

A start page that loaded but is slow to fire `load` (a hanging sub-resource), answers 4xx or
interrupts its own navigation (`ERR_ABORTED`: a client redirect, a download) was reached: the
agent gets it as it is."""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

# Chromium's network errors (net::ERR_CONNECTION_REFUSED, ERR_NAME_NOT_RESOLVED, ...).
_NET_ERROR = re.compile(r"net::(ERR_[A-Z_]+)")
# A navigation cut short by the page itself, not a failure to reach it.
_NOT_UNREACHABLE = {"ERR_ABORTED"}
# Statuses a proxy or server answers while the site behind it is down or starting.
SITE_DOWN_STATUSES = frozenset({502, 503, 504})
_STATUS_JS = ("() => { const n = performance.getEntriesByType('navigation')[0];"
              " return n ? (n.responseStatus || 0) : 0; }")


async def start_page_problem(page: Page, error: str | None) -> str | None:
    """Why the start page was not reached (None: it was), from the page after the start
    navigation and the navigation's error."""
    found = _NET_ERROR.search(error or "")
    if found and found.group(1) not in _NOT_UNREACHABLE:
        return found.group(1)
    if page.url.startswith("chrome-error://"):
        return error or "the browser shows its own error page"
    if error and page.url in ("", "about:blank"):
        return error  # nothing was loaded (the navigation timed out before any answer)
    try:
        status = await page.evaluate(_STATUS_JS)
    except PlaywrightError:
        return None
    if isinstance(status, int) and status in SITE_DOWN_STATUSES:
        return f"the site answered HTTP {status} (down or starting)"
    return None
