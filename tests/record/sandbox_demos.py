"""Recording sandbox tasks with a scripted person, shared by the record tests."""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
from pathlib import Path

from person import Person, attach, free_port, start_recorder
from playwright.async_api import async_playwright

from factories import SANDBOX_TODAY
from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.task import Task
from webtraj.sites.tasks import booking_suite


def suite_tasks(task_ids: tuple[str, ...]) -> list[Task]:
    by_id = {t.task_id: t for t in booking_suite(dt.date.fromisoformat(SANDBOX_TODAY))}
    return [by_id[t] for t in task_ids]


def _click(role: str, name: str, exact: bool = True) -> Action:
    return Action(kind=ActionKind.CLICK, target=ElementTarget(role=role, name=name,
                                                              exact=exact))


def plan(task: Task) -> list[Action]:
    """What the person does: the task's reference actions; on the hotel site also the
    guests steppers (one adult more, then one less: the search is unchanged)."""
    actions = [a for a in task.reference_actions or () if a.kind is not ActionKind.STOP]
    if task.site == "hotels":
        at = next(i for i, a in enumerate(actions) if a.target and a.target.name == "Search")
        actions[at:at] = [_click("button", "Guests and rooms", exact=False),
                          _click("button", "Increase adults"),
                          _click("button", "Decrease adults"),
                          Action(kind=ActionKind.CLICK, target=ElementTarget(
                              role="button", name="Done", nth=0))]
    return actions


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webtraj.cli.app", *args],
                          capture_output=True, text=True, timeout=600)


def record_tasks(tmp_path: Path, tasks: list[Task], *, html: bool = True) -> Path:
    """`webtraj record --suite booking` on `tasks`, done by the scripted person."""
    out = tmp_path / "demos"
    port = free_port()
    args = ["--suite", "booking", "--today", SANDBOX_TODAY, "--task-ids",
            ",".join(t.task_id for t in tasks), "--out", str(out)] + (["--html"] if html else [])
    proc = start_recorder(args, port, tmp_path / "record.log")
    try:
        asyncio.run(_drive(port, proc, tasks))
        assert proc.wait(120) == 0, (tmp_path / "record.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out


async def _drive(port: int, proc: subprocess.Popen, tasks: list[Task]) -> None:
    async with async_playwright() as pw:
        browser = await attach(pw, port, proc)
        person = Person(browser)
        done: set = set()
        for task in tasks:
            page = await person.start(task.intent[:40], exclude=done)
            for action in plan(task):
                await person.do(page, action)
            await person.finish()
            done.add(page)
