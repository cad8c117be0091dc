"""MiniWoB++ task instances (task page x seed) as webtraj `Task`s.

The intent is the page's own instruction (`#query`). A page draws its problem from its seed
(Math.seedrandom, then genProblem), so the instruction is read once by opening the page with
that seed in Chromium, and the episode later opens the same page with the same seed and sees
the same problem. Reading it up front gives every stored trajectory, report and curated record
the real instruction (relabeling and the judges need it), and the page reports the instruction
it showed at the start of each episode into the HAR, where the evaluator checks that they are
the same."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

from pydantic import Field

from webtraj.model import InputError, Task
from webtraj.model.base import FrozenModel
from webtraj.suites.miniwob.assets import task_names

SITE = "miniwob"
EVALUATOR = {"evaluator": "miniwob"}


class PageProbe(FrozenModel):
    """What one task page showed when opened with a seed."""

    name: str
    seed: int
    query: str | None = None
    time_limit_ms: int | None = None
    errors: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.query) and not self.errors


class InstanceSpec(FrozenModel):
    names: tuple[str, ...] = ()
    seeds: tuple[int, ...] = Field(default=(0,), min_length=1)


def task_id(name: str, seed: int) -> str:
    return f"miniwob/{name}/{seed}"


def start_url(base_url: str, name: str, seed: int) -> str:
    return f"{base_url.rstrip('/')}/miniwob/{name}.html?seed={seed}"


def parse_seeds(text: str) -> tuple[int, ...]:
    """`0-9`, `3`, `0,2,5-7` to seeds."""
    seeds: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        lo, dash, hi = part.partition("-")
        try:
            if dash:
                a, b = int(lo), int(hi)
                if b < a:
                    raise ValueError
                seeds.extend(range(a, b + 1))
            else:
                seeds.append(int(part))
        except ValueError:
            raise InputError(f"bad seed range {part!r}; expected e.g. 0-9 or 0,3,5",
                             field="seeds") from None
    if not seeds:
        raise InputError("no seeds given", field="seeds")
    return tuple(dict.fromkeys(seeds))


def check_names(names: Iterable[str]) -> tuple[str, ...]:
    known = set(task_names())
    names = tuple(names) or task_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"unknown MiniWoB++ task {unknown[0]!r} ({len(known)} tasks; "
                         "see `webtraj sites list`)", field="task-ids")
    return names


async def probe_pages(base_url: str, pairs: Sequence[tuple[str, int]], *,
                      concurrency: int = 4, timeout_ms: int = 10_000) -> list[PageProbe]:
    """Open each (task, seed) page once in Chromium and read its instruction and time limit.
    Each of `concurrency` tabs loads its share of the pages one after another."""
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    results: dict[int, PageProbe] = {}
    queue = list(enumerate(pairs))
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            async def worker() -> None:
                context = await browser.new_context(viewport={"width": 1280, "height": 720})
                try:
                    page = await context.new_page()
                    while queue:
                        i, (name, seed) = queue.pop(0)
                        results[i] = await _probe(page, base_url, name, seed, timeout_ms)
                finally:
                    await context.close()

            await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency,
                                                                       len(pairs))))))
        finally:
            await browser.close()
    return [results[i] for i in range(len(pairs))]


async def _probe(page, base_url: str, name: str, seed: int, timeout_ms: int) -> PageProbe:
    from playwright.async_api import Error as PlaywrightError

    errors: list[str] = []

    def on_error(exc: Exception) -> None:
        errors.append(f"page error: {exc}")

    page.on("pageerror", on_error)
    try:
        await page.goto(start_url(base_url, name, seed), wait_until="load", timeout=timeout_ms)
        await page.wait_for_function("window.__webtraj && window.__webtraj.started",
                                     timeout=timeout_ms)
        state = await page.evaluate("({q: window.__webtraj.query, "
                                    "t: window.__webtraj.timeLimitMs})")
    except PlaywrightError as exc:
        return PageProbe(name=name, seed=seed,
                         errors=(*errors, str(exc).splitlines()[0]))
    finally:
        page.remove_listener("pageerror", on_error)
    query = (state.get("q") or "").strip() or None
    if query is None:
        errors.append("the page showed no instruction (#query is empty)")
    limit = state.get("t")
    return PageProbe(name=name, seed=seed, query=query,
                     time_limit_ms=int(limit) if isinstance(limit, int | float) else None,
                     errors=tuple(errors))


def make_task(base_url: str, probe: PageProbe) -> Task:
    return Task(task_id=task_id(probe.name, probe.seed), intent=probe.query or "",
                site=SITE, start_url=start_url(base_url, probe.name, probe.seed),
                evaluators=(dict(EVALUATOR),),
                metadata={"suite": SITE, "miniwob_task": probe.name, "seed": probe.seed,
                          "time_limit_ms": probe.time_limit_ms})


def build_tasks(base_url: str, names: Iterable[str] = (), seeds: Iterable[int] = (0,), *,
                concurrency: int = 4) -> tuple[list[Task], list[PageProbe]]:
    """Tasks for every (name, seed); pages that fail to start are returned apart, with why."""
    names = check_names(names)
    pairs = [(n, s) for n in names for s in seeds]
    probes = asyncio.run(probe_pages(base_url, pairs, concurrency=concurrency))
    return [make_task(base_url, p) for p in probes if p.ok], [p for p in probes if not p.ok]
