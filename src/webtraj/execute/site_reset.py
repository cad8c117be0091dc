"""Resetting a deployment's site between tasks that change it: the user's own command per site
(e.g. `webarena-verified env stop --site reddit && webarena-verified env start --site reddit`),
run through the shell before each such task, then a bounded wait until the site answers
again (`reset_wait_s`). A failed reset, or a site still down when the wait is over, makes that
task's episode an error (never a score): the site's state is unknown."""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping

from webtraj.browser.reach import SITE_DOWN_STATUSES
from webtraj.model.run_settings import run_default

RESET_TIMEOUT_S = 1800.0
# Between two looks at a site that is not back yet; each look waits at most this long.
_POLL_S = 1.0
_LOOK_TIMEOUT_S = 10.0
# Proxies from the environment never stand between webtraj and the deployment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def reset_sites(commands: Mapping[str, str], sites: Iterable[str],
                urls: Mapping[str, str] | None = None,
                wait_s: float = run_default("reset_wait_s")) -> str | None:
    """Run the reset command of each of `sites` that has one, then wait up to `wait_s` for
    the site (its URL in `urls`) to answer; the first failure, or None."""
    for site in sites:
        cmd = commands.get(site)
        if not cmd:
            continue
        try:
            done = subprocess.run(cmd, shell=True, capture_output=True, text=True,  # noqa: S602 - the user's own command
                                  timeout=RESET_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return f"the reset command of site {site} ran over {RESET_TIMEOUT_S:.0f} s: {cmd}"
        except OSError as exc:
            return f"the reset command of site {site} could not start: {exc}"
        if done.returncode != 0:
            tail = (done.stderr or done.stdout or "").strip().splitlines()[-1:] or [""]
            return (f"the reset command of site {site} failed (exit {done.returncode}): "
                    f"{cmd}: {tail[0]}")
        url = (urls or {}).get(site)
        if url:
            down = wait_until_up(url, wait_s)
            if down is not None:
                return (f"site {site} ({url}) was still down {wait_s:g} s after its reset "
                        f"command ({down})")
    return None


def wait_until_up(url: str, wait_s: float) -> str | None:
    """Look at `url` until it answers (any HTTP status but a gateway's 502-504) or `wait_s`
    has passed; None when it is up, else what the last look found."""
    deadline = time.monotonic() + wait_s
    while True:
        problem = _look(url, max(0.1, min(_LOOK_TIMEOUT_S, deadline - time.monotonic())))
        if problem is None or time.monotonic() >= deadline:
            return problem
        time.sleep(min(_POLL_S, max(0.0, deadline - time.monotonic())))


def _look(url: str, timeout: float) -> str | None:
    try:
        with _OPENER.open(urllib.request.Request(url, method="GET"),  # noqa: S310 - the deployment's own http(s) URL
                          timeout=timeout) as resp:
            status = resp.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except urllib.error.URLError as exc:
        if "SSL" in type(exc.reason).__name__ or "CERTIFICATE" in str(exc.reason):
            return None  # it answered TLS: the site is up (the browser judges the certificate)
        return str(exc.reason)
    except (OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return f"HTTP {status}" if status in SITE_DOWN_STATUSES else None
