"""All 120 booking tasks solved by their reference actions in real Chromium, judged by the
oracle; and with one action removed, the affected constraint is unmet."""

from __future__ import annotations

import asyncio
import time

import pytest

from webtraj.browser.chromium import launch_chromium
from webtraj.sites.reference import run_reference
from webtraj.sites.tasks import booking_suite

from .conftest import TODAY

CONCURRENCY = 4


async def _run_all(jobs):
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        sem = asyncio.Semaphore(CONCURRENCY)

        async def one(task, actions):
            async with sem:
                ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
                page = await ctx.new_page()
                try:
                    return await run_reference(page, task.start_url, actions, timeout=8000)
                except Exception as exc:  # report, don't hide: the test asserts on it
                    return exc
                finally:
                    await ctx.close()

        results = await asyncio.gather(*(one(t, a) for t, a in jobs))
        await browser.close()
        return results


@pytest.fixture(scope="module")
def suite(served):
    return booking_suite(TODAY, port_base=served.port_base)


@pytest.fixture(scope="module", params=[
    pytest.param(4, id="every-4th-task"), pytest.param(1, id="all-tasks", marks=pytest.mark.slow)])
def reference_runs(request, suite):
    """Every 4th task (all sites and difficulties) in `make test`; all 120 in `make test-slow`."""
    tasks = suite[::request.param]
    t0 = time.monotonic()
    results = asyncio.run(_run_all([(t, list(t.reference_actions)) for t in tasks]))
    print(f"\n{len(tasks)}-task reference run: {time.monotonic() - t0:.1f}s")
    return tasks, results


def test_every_reference_solution_satisfies_all_constraints(suite, reference_runs, oracle):
    tasks, results = reference_runs
    assert {t.site for t in tasks} == {t.site for t in suite}
    failures = []
    for task, urls in zip(tasks, results, strict=True):
        if isinstance(urls, Exception):
            failures.append(f"{task.task_id}: {type(urls).__name__}: {str(urls)[:300]}")
            continue
        report = oracle.check_urls(task, urls)
        if not report.success:
            failures.append(f"{task.task_id}: unmet {report.unmet()} at {urls[-1]}")
    assert not failures, "\n".join(failures)
    assert len(suite) == 120


def test_removing_the_setting_action_leaves_that_constraint_unmet(suite, oracle):
    jobs, expect = [], []
    for task in suite[::6]:
        sets = task.metadata["sets"]
        # The last constraint set by its own action; dropping it must leave it unmet.
        name, idx = max(sets.items(), key=lambda kv: kv[1])
        actions = [a for i, a in enumerate(task.reference_actions) if i != idx]
        jobs.append((task, actions))
        expect.append((task, name))
    results = asyncio.run(_run_all(jobs))
    for (task, name), urls in zip(expect, results, strict=True):
        if isinstance(urls, Exception):
            continue  # the ablated solution could not even finish: certainly not solved
        report = oracle.check_urls(task, urls)
        assert name in report.unmet(), (task.task_id, name, urls[-1])
