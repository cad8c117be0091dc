"""Which MiniWoB++ tasks run in Chromium: each task's page tried once (seed 0) through the
same environment episodes use. The result is written next to this module and shown by
`webtraj sites list`; `python -m webtraj.suites.miniwob check` measures it again.

A task runs when its page loads, starts its episode with the seed, shows an instruction (the
same one when loaded again with the same seed: the task's intent is read ahead of the
episode), raises no JavaScript error, and its first observation has elements an agent can act
on: ids of the accessibility tree or of marked elements without a role (`[n3]`, see
browser/marks.py). Tasks whose instruction asks for a mouse drag or drawing are counted apart
(they need `mouse_drag`)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
from pathlib import Path

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.suites.miniwob.assets import html_dir, package_version, task_names
from webtraj.suites.miniwob.tasks import PageProbe, probe_pages, start_url

RESULT_FILE = Path(__file__).with_name("chromium_check.json")
_ID = re.compile(r"^\s*\[n?\d+\]", re.M)
_DRAG = re.compile(r"\bdrag\b|\bdraw an? ", re.I)


class TaskCheck(FrozenModel):
    name: str
    # Page loaded, episode started with the seed, instruction shown, no JavaScript error.
    starts: bool
    # ... and the first observation has elements (with ids) an agent can act on.
    runs: bool
    why: str | None = None
    actionable_elements: int = 0
    needs_drag: bool = False
    # The page's own scripts call core.endEpisode or core.continuousReward outside comments:
    # otherwise only the core's time-out ends it (reward -1) and no agent can earn a reward.
    reward_possible: bool = True


class ChromiumCheck(FrozenModel):
    checked_on: str
    miniwob_version: str
    chromium_version: str
    tasks: tuple[TaskCheck, ...] = Field(default=())

    @property
    def running(self) -> list[TaskCheck]:
        return [t for t in self.tasks if t.runs]

    @property
    def failing(self) -> list[TaskCheck]:
        return [t for t in self.tasks if not t.runs]


_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\'\"])//[^\n]*", re.S)
_REWARD_CALL = re.compile(r"\b(?:core\.)?(?:endEpisode|continuousReward)\s*\(")


def reward_possible(name: str) -> bool:
    """Whether the task's page (its HTML and the scripts it includes besides the core) ever
    reports a reward: a call to endEpisode/continuousReward that is not commented out."""
    folder = html_dir() / "miniwob"
    page = (folder / f"{name}.html").read_text(errors="replace")
    texts = [page]
    for src in re.findall(r'<script[^>]+src="([^"]+)"', page):
        path = (folder / src).resolve()
        if "core/" not in src and path.is_file():
            texts.append(path.read_text(errors="replace"))
    return any(_REWARD_CALL.search(_COMMENT.sub("", t)) for t in texts)


async def _elements(base_url: str, names: list[str]) -> tuple[dict[str, int], str]:
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium
    from webtraj.browser.config import EnvConfig
    from webtraj.browser.env import BrowserEnv

    counts: dict[str, int] = {}
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            for name in names:
                env = BrowserEnv(browser, EnvConfig(screenshot=False, structured_data=False))
                try:
                    obs = await env.reset(start_url(base_url, name, 0))
                    counts[name] = len(_ID.findall(obs.axtree))
                finally:
                    await env.close()
            return counts, browser.version
        finally:
            await browser.close()


def run_check(base_url: str) -> ChromiumCheck:
    names = list(task_names())
    pairs = [(n, 0) for n in names]
    probes: list[PageProbe] = asyncio.run(probe_pages(base_url, pairs))
    again = {p.name: p.query for p in asyncio.run(probe_pages(base_url, pairs))}
    counts, version = asyncio.run(_elements(base_url, [p.name for p in probes if p.ok]))
    checks = []
    for p in probes:
        n = counts.get(p.name, 0)
        same = again.get(p.name) == p.query
        why = "; ".join(p.errors) if p.errors else (
            "the instruction differs between two loads with the same seed" if not same else
            None if n else "the page starts, but its accessibility tree has no element an "
            "agent can act on")
        checks.append(TaskCheck(name=p.name, starts=p.ok, runs=p.ok and same and n > 0, why=why,
                                actionable_elements=n,
                                needs_drag=bool(p.query and _DRAG.search(p.query)),
                                reward_possible=reward_possible(p.name)))
    return ChromiumCheck(checked_on=dt.date.today().isoformat(),
                         miniwob_version=package_version(), chromium_version=version,
                         tasks=tuple(checks))


def load_check() -> ChromiumCheck | None:
    if not RESULT_FILE.is_file():
        return None
    return ChromiumCheck.model_validate_json(RESULT_FILE.read_bytes())


def main(out: str | None = None) -> None:
    from webtraj.suites.miniwob.server import MiniWoBServer

    with MiniWoBServer() as server:
        result = run_check(server.base_url)
    path = Path(out) if out else RESULT_FILE
    path.write_text(json.dumps(result.model_dump(mode="json"), indent=1) + "\n")
    print(f"{sum(t.starts for t in result.tasks)} of {len(result.tasks)} MiniWoB++ task pages "
          f"start in Chromium; {len(result.running)} give an agent elements to act on "
          f"({sum(t.needs_drag for t in result.running)} of them need a drag); "
          f"written to {path}")
    for t in result.failing:
        print(f"  {t.name}: {t.why}")
