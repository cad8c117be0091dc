"""Resetting a deployment's site between tasks that change it: the user's own command per site
(e.g. `webarena-verified env stop --site reddit && webarena-verified env start --site reddit`),
run through the shell before each such task. A failed reset makes that task's episode an
error (never a score): the site's state is unknown."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping

RESET_TIMEOUT_S = 1800.0


def reset_sites(commands: Mapping[str, str], sites: Iterable[str]) -> str | None:
    """Run the reset command of each of `sites` that has one; the first failure, or None."""
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
    return None
