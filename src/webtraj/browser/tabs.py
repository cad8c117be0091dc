"""Tabs of an episode: the open pages in opening order, which one is active, popups and
JavaScript dialogs (answered at once and recorded, so a dialog never blocks an episode)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from playwright.async_api import BrowserContext, Dialog, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.model.episode import DialogRecord
from webtraj.model.trajectory import Tab


class TabManager:
    def __init__(self, context: BrowserContext, dialog_policy: Literal["accept", "dismiss"],
                 prepare: Callable[[Page], Awaitable[None]] | None = None):
        self.context = context
        # Awaited on each tab webtraj opens before it is used (the allowlist's page guard).
        self.prepare = prepare
        self.dialog_policy = dialog_policy
        self.pages: list[Page] = []
        self.active: Page | None = None
        self.dialogs: list[DialogRecord] = []
        # Per page, the ref prefix of its last observation (turns numeric ids into refs).
        self.ref_prefix: dict[Page, str] = {}
        context.on("page", self._opened)

    def _opened(self, page: Page) -> None:
        """Any new page (popup, target=_blank link, new_tab) becomes the active tab."""
        if page in self.pages:
            return
        self.pages.append(page)
        self.active = page
        page.on("dialog", self._on_dialog)
        page.on("close", self._closed)

    def _closed(self, page: Page) -> None:
        if page in self.pages:
            idx = self.pages.index(page)
            self.pages.remove(page)
            self.ref_prefix.pop(page, None)
            if self.active is page:
                self.active = self.pages[min(idx, len(self.pages) - 1)] if self.pages else None

    async def _on_dialog(self, dialog: Dialog) -> None:
        # Alerts have nothing to refuse; refusing a beforeunload would trap the agent on a page.
        accept = dialog.type in ("alert", "beforeunload") or self.dialog_policy == "accept"
        self.dialogs.append(DialogRecord(kind=dialog.type, message=dialog.message,
                                         url=dialog.page.url if dialog.page else "",
                                         accepted=accept, time=time.time()))
        try:
            if accept:
                await dialog.accept(dialog.default_value or None)
            else:
                await dialog.dismiss()
        except PlaywrightError:
            pass

    async def new_tab(self) -> Page:
        page = await self.context.new_page()
        if self.prepare is not None:
            await self.prepare(page)
        self._opened(page)
        self.active = page
        return page

    async def current(self) -> Page:
        """The active page; opens a blank one when every tab has been closed."""
        if self.active is None or self.active.is_closed():
            live = [p for p in self.pages if not p.is_closed()]
            self.pages = live
            self.active = live[-1] if live else None
        if self.active is None:
            return await self.new_tab()
        return self.active

    async def focus(self, index: int) -> Page:
        if not 0 <= index < len(self.pages):
            raise IndexError(f"no tab {index}; open tabs are 0..{len(self.pages) - 1}")
        self.active = self.pages[index]
        await self.active.bring_to_front()
        return self.active

    async def close_active(self) -> None:
        page = await self.current()
        await page.close()
        self._closed(page)
        await self.current()

    async def describe(self, timeout_s: float = 20.0) -> tuple[Tab, ...]:
        tabs = []
        for i, page in enumerate(self.pages):
            try:  # bounded: a page stuck in a script must not stall the observation
                title = await asyncio.wait_for(page.title(), timeout=timeout_s)
            except (PlaywrightError, TimeoutError):
                title = ""
            tabs.append(Tab(index=i, url=page.url, title=title, active=page is self.active))
        return tuple(tabs)
