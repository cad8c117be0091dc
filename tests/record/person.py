"""A scripted person: attaches to `webtraj record`'s browser over CDP and does a task with
real input (Playwright's mouse and keyboard through Chromium's input pipeline), waiting
between actions for the recorder's next observation as a person waits to see the page."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.async_api import Browser, Page

from webtraj.model.action import Action, ActionKind

SITE_PREFIX = "http://127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_recorder(args: list[str], port: int, log: Path) -> subprocess.Popen:
    """`webtraj record ... --cdp-port PORT --headless` in a child process."""
    cmd = [sys.executable, "-m", "webtraj.cli.app", "record", *args, "--cdp-port", str(port),
           "--headless"]
    return subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


async def attach(pw, port: int, proc: subprocess.Popen, timeout: float = 60) -> Browser:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the recorder exited with {proc.returncode}")
        try:
            return await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


class Person:
    def __init__(self, browser: Browser) -> None:
        self.browser = browser

    def _pages(self) -> list[Page]:
        return [p for c in self.browser.contexts for p in c.pages if not p.is_closed()]

    async def _find(self, pick, timeout: float = 60) -> Page:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for page in self._pages():
                try:
                    if await pick(page):
                        return page
                except Exception:
                    continue
            await asyncio.sleep(0.1)
        raise TimeoutError("page not found")

    async def panel(self) -> Page:
        return await self._find(lambda p: p.locator("#finish").count())

    async def site(self, exclude: set[Page] = frozenset()) -> Page:
        async def pick(p):
            return p not in exclude and p.url.startswith(SITE_PREFIX)
        return await self._find(pick)

    async def observations(self) -> int:
        panel = await self.panel()
        return int(await panel.evaluate("Number(document.body.dataset.observations || 0)"))

    async def wait_ready(self, after: int, timeout: float = 30) -> None:
        panel = await self.panel()
        await panel.wait_for_function(
            "n => document.body.dataset.state === 'ready' && "
            "Number(document.body.dataset.observations || 0) > n", arg=after,
            timeout=timeout * 1000, polling=50)

    async def start(self, intent_part: str, exclude: set[Page] = frozenset()) -> Page:
        """Wait for the panel to show the task and the recorder to be ready."""
        panel = await self.panel()
        await panel.wait_for_function(
            "t => document.getElementById('intent').textContent.includes(t) && "
            "document.body.dataset.state === 'ready'", arg=intent_part, timeout=60_000)
        return await self.site(exclude)

    async def act(self, page: Page, work) -> None:
        before = await self.observations()
        await work()
        try:
            await self.wait_ready(before)
        except Exception as exc:
            raise AssertionError(f"no observation after {work!r} on {page.url}") from exc

    async def do(self, page: Page, action: Action) -> None:
        """One reference action, done the way a person does it."""
        t = action.target
        loc = page.get_by_role(t.role, name=t.name, exact=t.exact).nth(t.nth) if t else None
        if action.kind is ActionKind.CLICK:
            await self.act(page, loc.click)
        elif action.kind is ActionKind.TYPE:
            async def typing():
                await loc.click()
                await page.keyboard.press("Control+a")
                await page.keyboard.type(action.value or "", delay=15)
                if action.press_enter:
                    await page.keyboard.press("Enter")
            await self.act(page, typing)
        elif action.kind is ActionKind.SELECT:
            async def choosing():
                await loc.click()  # opens the list; arrows move, Enter picks
                here, there = await loc.evaluate(
                    "(e, v) => [e.selectedIndex, [...e.options].findIndex("
                    "o => o.label.trim() === v)]", action.value)
                key = "ArrowDown" if there > here else "ArrowUp"
                for _ in range(abs(there - here)):
                    await page.keyboard.press(key)
                await page.keyboard.press("Enter")
            await self.act(page, choosing)
        else:
            raise ValueError(f"the scripted person does not do {action.kind.value}")

    async def finish(self, answer: str = "") -> None:
        panel = await self.panel()
        if answer:
            await panel.locator("#answer").click()
            await panel.keyboard.type(answer)
        await panel.locator("#finish").click()


def record_session(tmp_path: Path, url: str, intent: str, script, *,
                   expect_rc: int = 0) -> Path:
    """`webtraj record --url URL --intent INTENT` into `tmp_path/demos`, with
    `script(person, page, browser)` as the person (it ends the task itself, or not); the
    recorder must exit with `expect_rc`. Returns the run's folder."""
    from playwright.async_api import async_playwright

    out = tmp_path / "demos"
    port = free_port()
    log = tmp_path / "record.log"
    proc = start_recorder(["--url", url, "--intent", intent, "--out", str(out)], port, log)
    try:
        async def drive() -> None:
            async with async_playwright() as pw:
                browser = await attach(pw, port, proc)
                person = Person(browser)
                page = await person.start(intent)
                await script(person, page, browser)
        asyncio.run(drive())
        assert proc.wait(60) == expect_rc, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out
