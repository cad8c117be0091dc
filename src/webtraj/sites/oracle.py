"""The oracle: the true value of every task constraint at every step of a trajectory.

It reads the site's own state (the URL, parsed by the site's own code, and the listing it
names, looked up in the inventory), never page text. This is the ground truth that judges
are measured against.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlsplit

from pydantic import JsonValue

from webtraj.model.base import FrozenModel
from webtraj.model.score import ConstraintCheck
from webtraj.model.task import MADE_SELECTION, Constraint, ConstraintType, Task
from webtraj.model.trajectory import Trajectory
from webtraj.sites.base import Site
from webtraj.sites.common.dates import parse_date
from webtraj.sites.common.state import PageState

# Constraints read as bounds rather than exact values.
AT_LEAST = frozenset({"min_stars", "min_bedrooms", "depart_after"})
AT_MOST = frozenset({"max_price", "max_stops"})
MUTATING = ("POST", "PUT", "PATCH", "DELETE")


def _norm(v: Any) -> str:
    return " ".join(str(v).casefold().replace(",", " ").split())


def matches(c: Constraint, shown: JsonValue) -> bool:
    """Does the value a page shows satisfy constraint `c`?"""
    if shown is None:
        return c.name == MADE_SELECTION and c.value is False
    if c.name in AT_LEAST or c.name in AT_MOST:
        try:
            a, b = (str(shown), str(c.value)) if c.name == "depart_after" else (
                float(shown), float(c.value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return a >= b if c.name in AT_LEAST else a <= b  # type: ignore[operator]
    if c.type is ConstraintType.BOOLEAN or isinstance(c.value, bool):
        return bool(shown) is bool(c.value)
    if c.type is ConstraintType.DATE:
        a, b = parse_date(str(shown)), parse_date(str(c.value))
        return a is not None and a == b
    if c.type is ConstraintType.NUMBER:
        try:
            return float(shown) == float(c.value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
    accepted = {_norm(c.value), *(_norm(a) for a in c.aliases)}
    return _norm(shown) in accepted


def check_state(task: Task, state: PageState) -> list[ConstraintCheck]:
    checks = []
    for c in task.constraints:
        if state.page == "error":
            checks.append(ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=None,
                                          matching=False, reason=f"error page: {state.error}"))
            continue
        shown = state.values.get(c.name)
        if c.name == MADE_SELECTION and shown is None:
            shown = False
        ok = matches(c, shown)
        reason = None if c.name in state.values or c.name == MADE_SELECTION else (
            f"not shown on this {state.page} page")
        checks.append(ConstraintCheck(name=c.name, ground_truth=c.value, agent_state=shown,
                                      matching=ok, reason=reason))
    return checks


class OracleStep(FrozenModel):
    index: int
    url: str
    page: str
    listing: str | None = None
    checks: tuple[ConstraintCheck, ...]

    @property
    def csr(self) -> float:
        return sum(1 for c in self.checks if c.matching) / len(self.checks) if self.checks else 1.0


class OracleReport(FrozenModel):
    task_id: str
    steps: tuple[OracleStep, ...]
    # Mutating requests (e.g. a forbidden "pay") seen in the HAR, as "METHOD url".
    mutations: tuple[str, ...] = ()

    @property
    def final(self) -> OracleStep:
        return self.steps[-1]

    @property
    def success(self) -> bool:
        return bool(self.steps) and all(c.matching for c in self.final.checks)

    def unmet(self) -> list[str]:
        return [c.name for c in self.final.checks if not c.matching]


class Oracle:
    """Maps URLs to sites by origin and reads each with the site's own parser."""

    def __init__(self, sites: dict[str, Site], urls: dict[str, str]) -> None:
        self.sites = sites
        self.origins = {_origin(u): key for key, u in urls.items()}

    def site_for(self, url: str) -> Site | None:
        key = self.origins.get(_origin(url))
        return self.sites.get(key) if key else None

    def observe(self, url: str) -> PageState:
        site = self.site_for(url)
        if site is None:
            return PageState(site="", page="other", error="not a sandbox site URL")
        return site.observe(url)

    def check_url(self, task: Task, url: str, index: int = 0) -> OracleStep:
        state = self.observe(url)
        return OracleStep(index=index, url=url, page=state.page, listing=state.listing,
                          checks=tuple(check_state(task, state)))

    def check_urls(self, task: Task, urls: list[str],
                   har: dict | None = None) -> OracleReport:
        return OracleReport(task_id=task.task_id,
                            steps=tuple(self.check_url(task, u, i) for i, u in enumerate(urls)),
                            mutations=tuple(mutations(har)) if har else ())

    def check_trajectory(self, trajectory: Trajectory, har: dict | None = None) -> OracleReport:
        """One OracleStep per observation o_0..o_T (the constraint-based evaluation paper's CSR per
        step)."""
        urls = [o.url for o in trajectory.observations]
        return self.check_urls(trajectory.task, urls, har)


def mutations(har: dict) -> list[str]:
    out = []
    for entry in (har.get("log") or {}).get("entries") or []:
        req = entry.get("request") or {}
        if str(req.get("method", "")).upper() in MUTATING:
            out.append(f"{req.get('method')} {req.get('url')}")
    return out


def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.hostname}:{p.port or (443 if p.scheme == 'https' else 80)}"


def today_of(sites: dict[str, Site]) -> dt.date:
    return next(iter(sites.values())).today
