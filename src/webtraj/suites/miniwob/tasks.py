"""MiniWoB++ task instances (task page x seed) as webtraj `Task`s.

The intent is the page's own instruction (`#query`). A page draws its problem from its seed
(Math.seedrandom, then genProblem), so the same page with the same seed shows the same
instruction. A run reads it in each episode's own page load (`PAGE_TASK`: the episode waits
for the page to start its task, takes its instruction as the task's intent, and ends when the
page gives its reward), so a run starts at once and loads each page once. A task list that
needs the instructions before any episode (`webtraj sites tasks`, the Python API) opens the
pages in a bounded pool of tabs and keeps what they showed in a cache per (task, seed,
miniwob version), so the next list is read from disk. Either way the page reports the
instruction it showed into the HAR, where the evaluator checks it against the intent."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from pathlib import Path

import orjson
from pydantic import Field

from webtraj.browser.page_task import PageTask
from webtraj.model import InputError, Task
from webtraj.model.base import FrozenModel
from webtraj.runtime.user_dirs import user_path
from webtraj.store.atomic import write_bytes_atomic
from webtraj.suites.miniwob.assets import package_version, task_names

SITE = "miniwob"
EVALUATOR = {"evaluator": "miniwob"}
# The instruction cache's folder (default: the user's cache folder, webtraj/miniwob).
ENV_CACHE = "WEBTRAJ_MINIWOB_CACHE"

# What the injected episode script (episode.js) keeps in `window.__webtraj`; the page has
# ended once its reward report reached the server (so the HAR holds it).
PAGE_TASK = PageTask(
    started="window.__webtraj !== undefined && window.__webtraj.started",
    intent="window.__webtraj.query",
    metadata="({time_limit_ms: window.__webtraj.timeLimitMs})",
    ended="window.__webtraj !== undefined && window.__webtraj.reported")


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


def page_stated_tasks(base_url: str, names: Iterable[str] = (), seeds: Iterable[int] = (0,)
                      ) -> list[Task]:
    """Tasks for every (name, seed) whose intent (and time limit) the episode reads from its
    own page load (`PAGE_TASK`): nothing is opened now."""
    return [Task(task_id=task_id(n, s), intent="", site=SITE,
                 start_url=start_url(base_url, n, s), evaluators=(dict(EVALUATOR),),
                 metadata={"suite": SITE, "miniwob_task": n, "seed": s})
            for n in check_names(names) for s in seeds]


def cache_dir(environ: dict[str, str] | None = None) -> Path:
    return user_path("cache", "miniwob", override=ENV_CACHE, environ=environ)


class InstructionCache:
    """What each (task, seed) page showed, one JSON file per miniwob version. Only pages that
    started are kept; a file that cannot be read is an empty cache (it is only a cache)."""

    def __init__(self, folder: Path | None = None, version: str | None = None) -> None:
        self.path = (folder or cache_dir()) / f"instructions-{version or package_version()}.json"

    def load(self) -> dict[str, PageProbe]:
        try:
            raw = orjson.loads(self.path.read_bytes())
            return {k: PageProbe.model_validate(v) for k, v in raw.items()}
        except (OSError, ValueError):
            return {}

    def save(self, probes: Iterable[PageProbe]) -> None:
        known = self.load()
        known.update({task_id(p.name, p.seed): p for p in probes if p.ok})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(self.path, orjson.dumps(
                {k: v.model_dump(mode="json") for k, v in sorted(known.items())}))
        except OSError:  # a read-only cache folder costs the next list its speed only
            pass


def build_tasks(base_url: str, names: Iterable[str] = (), seeds: Iterable[int] = (0,), *,
                concurrency: int = 4, cache: bool = True) -> tuple[list[Task], list[PageProbe]]:
    """Tasks for every (name, seed) with the instruction each page shows; pages that fail to
    start are returned apart, with why. Pages already in the cache are not opened again."""
    names = check_names(names)
    pairs = [(n, s) for n in names for s in seeds]
    store = InstructionCache() if cache else None
    known = store.load() if store is not None else {}
    missing = [p for p in pairs if task_id(*p) not in known]
    if missing:
        fresh = asyncio.run(probe_pages(base_url, missing, concurrency=concurrency))
        if store is not None:
            store.save(fresh)
        known.update({task_id(p.name, p.seed): p for p in fresh})
    probes = [known[task_id(*p)] for p in pairs]
    return [make_task(base_url, p) for p in probes if p.ok], [p for p in probes if not p.ok]
