"""Performing the model's actions in a page. Failures come back as a message, never raised:
a bad id or an element that cannot be used is something the agent must see and recover from.

Elements are found by observation id (a Playwright aria ref, `aria-ref=e12`, or for an
element without a role the mark `data-webtraj-id="n3"`, see marks.py) or, for reference
actions, by `ElementTarget` (role + accessible name through `get_by_role`, searched in the
main frame first, then in iframes).

Mouse actions at a point (`mouse_click [x] [y]`, `mouse_drag ...`) and `keyboard_type` are
real input events (CDP `Input.dispatch*`), as a person's would be: the page sees pointer,
mouse and key events with their coordinates, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from webtraj.browser.allowlist import OriginAllowlist
from webtraj.browser.axtree import VALUE_ROLES, id_to_ref
from webtraj.browser.config import EnvConfig
from webtraj.browser.marks import MARK_ATTRIBUTE, MARK_ID
from webtraj.browser.passwords import resolve_secret
from webtraj.browser.tabs import TabManager
from webtraj.model.action import POINT_KINDS, Action, ActionKind, ElementTarget

# Key names agents write, in Playwright's spelling.
_KEYS = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "esc": "Escape", "escape": "Escape",
    "space": "Space", "backspace": "Backspace", "delete": "Delete", "del": "Delete",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "pageup": "PageUp", "pagedown": "PageDown", "home": "Home",
    "end": "End", "ctrl": "Control", "control": "Control", "cmd": "Meta", "meta": "Meta",
    "command": "Meta", "alt": "Alt", "option": "Alt", "shift": "Shift",
}


# For a native <select>: the index of the option whose label, text or value is `v` (labels
# first, then case-insensitive), -1 if none, null for any other element.
_OPTION_INDEX = """(e, v) => {
  if (e.tagName !== 'SELECT') return null;
  const opts = [...e.options];
  const norm = (s) => (s || '').trim().toLowerCase();
  let i = opts.findIndex(o => o.label.trim() === v.trim() || o.text.trim() === v.trim());
  if (i < 0) i = opts.findIndex(o => o.value === v);
  if (i < 0) i = opts.findIndex(o => norm(o.label) === norm(v));
  return i;
}"""


# How long an action by role and name waits for its element to appear.
TARGET_WAIT_S = 2.0
# A drag moves the mouse in steps of about this many pixels (pages that follow the pointer,
# such as sliders and drawing areas, see the path, not a jump), between 5 and 50 moves.
DRAG_STEP_PX = 8


class ActionFailed(Exception):
    """An action that could not be carried out; the message is shown to the agent."""


def playwright_key(combo: str) -> str:
    """`ctrl+a` -> `Control+a`, `enter` -> `Enter`; unknown names pass through."""
    parts = [p.strip() for p in combo.replace(" ", "").split("+") if p.strip()]
    return "+".join(_KEYS.get(p.lower(), p) for p in parts) or combo


def _moves(x1: float, y1: float, x2: float, y2: float) -> int:
    distance = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
    return max(5, min(50, round(distance / DRAG_STEP_PX)))


# Is this element (or, in a shadow root or frame, the focused one inside it) a password input?
_IS_PASSWORD = """e => {
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  return !!e && e.tagName === 'INPUT' && (e.type || '').toLowerCase() === 'password';
}"""


_ACTIVE_IS_PASSWORD = f"() => ({_IS_PASSWORD})(document.activeElement)"


async def _is_password(check: Awaitable[object]) -> bool:
    try:
        return bool(await check)
    except PlaywrightError:
        return False  # the element went away: the action reports it


def _short(exc: Exception) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first.removeprefix("Error: ")


class ActionRunner:
    def __init__(self, tabs: TabManager, allowlist: OriginAllowlist, config: EnvConfig):
        self.tabs = tabs
        self.allowlist = allowlist
        self.config = config
        # Where this runner's last mouse move left the pointer, per page.
        self.mouse: dict[Page, tuple[float, float]] = {}
        # Whether an action has moved the mouse (a click or hover goes to its element first).
        self.pointer_moved = False
        # What the action being run typed into a password field (run() returns it).
        self._typed_secret: str | None = None

    async def locate(self, page: Page, action: Action) -> Locator:
        """The single element an action targets, or ActionFailed saying why not."""
        if action.element_id:
            if MARK_ID.match(action.element_id):
                loc = page.locator(f'[{MARK_ATTRIBUTE}="{action.element_id}"]')
            else:
                ref = id_to_ref(action.element_id, self.tabs.ref_prefix.get(page, ""))
                loc = page.locator(f"aria-ref={ref}")
            try:
                count = await loc.count()
            except PlaywrightError:
                count = 0
            if count == 0:
                raise ActionFailed(f"no element with id [{action.element_id}] on the page; "
                                   "use an id from the current accessibility tree")
            return loc
        assert action.target is not None
        return await self._by_target(page, action.target)

    async def _by_target(self, page: Page, target: ElementTarget) -> Locator:
        # A reference action may name an element a client-rendered page is still drawing:
        # look again for a short while before giving up.
        deadline = time.monotonic() + TARGET_WAIT_S
        while True:
            frames = [page.main_frame] + [f for f in page.frames if f is not page.main_frame]
            for frame in frames:
                loc = frame.get_by_role(target.role, name=target.name,  # type: ignore[arg-type]
                                        exact=target.exact)
                try:
                    count = await loc.count()
                except PlaywrightError:
                    continue
                if count > target.nth:
                    return loc.nth(target.nth)
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.1)
        raise ActionFailed(
            f"no {target.role} named {target.name!r}" + (f" (#{target.nth})" if target.nth else "")
            + " on the page")

    async def run(self, action: Action) -> str | None:
        """Carry out `action` on the active tab; raises ActionFailed with a readable reason.
        Returns the text typed when it went into a password field (None otherwise), so that
        the caller masks it (passwords.py)."""
        self._typed_secret = None
        try:
            await self._run(action)
        except ActionFailed:
            raise
        except PlaywrightError as exc:
            raise ActionFailed(f"{action.kind.value} failed: {_short(exc)}") from None
        finally:
            typed, self._typed_secret = self._typed_secret, None
        return typed

    def _text(self, action: Action) -> str:
        """What a type action types: a secret named by reference is typed by its value."""
        return resolve_secret(action.value or "", self.config.named_secrets())

    async def _run(self, action: Action) -> None:
        k = action.kind
        timeout = self.config.action_timeout_ms
        page = await self.tabs.current()
        if k is ActionKind.STOP:
            return
        if k in (ActionKind.CLICK, ActionKind.HOVER, ActionKind.TYPE, ActionKind.SELECT):
            loc = await self.locate(page, action)
            if k is ActionKind.CLICK:
                self.pointer_moved = True
                await loc.click(timeout=timeout)
            elif k is ActionKind.HOVER:
                self.pointer_moved = True
                await loc.hover(timeout=timeout)
            elif k is ActionKind.TYPE:
                text = self._text(action)
                if await _is_password(loc.evaluate(_IS_PASSWORD, timeout=timeout)):
                    self._typed_secret = text
                await self._type(page, loc, text, action.press_enter)
            else:
                await self._select(page, loc, action.value or "")
        elif k in POINT_KINDS:
            self.pointer_moved = True
            await self._mouse(page, action)
        elif k is ActionKind.KEYBOARD_TYPE:
            text = self._text(action)
            if await _is_password(page.evaluate(_ACTIVE_IS_PASSWORD)):
                self._typed_secret = text
            await page.keyboard.type(text)
        elif k is ActionKind.PRESS:
            await page.keyboard.press(playwright_key(action.value or ""))
        elif k is ActionKind.SCROLL and action.point is not None:
            self.pointer_moved = True
            await self._wheel(page, action)
        elif k is ActionKind.SCROLL:
            sign = -1 if action.value == "up" else 1
            await page.evaluate(
                "(s) => window.scrollBy({top: s * Math.round(window.innerHeight * 0.8),"
                " behavior: 'instant'})", sign)
        elif k is ActionKind.GOTO:
            await self._goto(page, action.value or "")
        elif k in (ActionKind.GO_BACK, ActionKind.GO_FORWARD):
            before = page.url
            nav = page.go_back if k is ActionKind.GO_BACK else page.go_forward
            await nav(timeout=self.config.navigation_timeout_ms, wait_until="load")
            if page.url == before:
                where = "previous" if k is ActionKind.GO_BACK else "next"
                raise ActionFailed(f"no {where} page in this tab's history")
        elif k is ActionKind.NEW_TAB:
            await self.tabs.new_tab()
        elif k is ActionKind.TAB_FOCUS:
            try:
                await self.tabs.focus(action.tab_index or 0)
            except IndexError as exc:
                raise ActionFailed(str(exc)) from None
        elif k is ActionKind.CLOSE_TAB:
            await self.tabs.close_active()

    def _inside(self, x: float, y: float) -> None:
        w, h = self.config.viewport_width, self.config.viewport_height
        if not (0 <= x < w and 0 <= y < h):
            raise ActionFailed(f"the point ({x:g}, {y:g}) is outside the viewport "
                               f"({w}x{h} CSS pixels); scroll to bring the target into view")

    async def _wheel(self, page: Page, action: Action) -> None:
        """A scroll at a point: the wheel turned there, by 80% of the visible height of the
        scrollable element under it (the page's when none), as a person scrolls a list."""
        x, y = action.x or 0.0, action.y or 0.0
        self._inside(x, y)
        height = await page.evaluate(
            """([x, y]) => { for (let e = document.elementFromPoint(x, y); e && e.nodeType === 1;
                 e = e.parentElement) { const o = getComputedStyle(e).overflowY;
                 if ((o === 'auto' || o === 'scroll') && e.scrollHeight > e.clientHeight)
                   return e.clientHeight; }
               return window.innerHeight; }""", [x, y])
        sign = -1 if action.value == "up" else 1
        await page.mouse.move(x, y)
        self.mouse[page] = (x, y)
        await page.mouse.wheel(0, sign * round(float(height) * 0.8))

    async def _mouse(self, page: Page, action: Action) -> None:
        x, y = action.x or 0.0, action.y or 0.0
        self._inside(x, y)
        k = action.kind
        last = self.mouse.get(page)
        self.mouse[page] = (x, y)
        if k is ActionKind.MOUSE_CLICK:
            await page.mouse.click(x, y)
        elif k is ActionKind.MOUSE_DBLCLICK:
            await page.mouse.dblclick(x, y)
        elif k is ActionKind.MOUSE_MOVE:
            # Pages that follow the pointer see it travel, not jump.
            await page.mouse.move(x, y, steps=_moves(*last, x, y) if last else 1)
        else:
            x2, y2 = action.to_x or 0.0, action.to_y or 0.0
            self._inside(x2, y2)
            await page.mouse.move(x, y)
            await page.mouse.down()
            await page.mouse.move(x2, y2, steps=_moves(x, y, x2, y2))
            await page.mouse.up()
            self.mouse[page] = (x2, y2)

    async def _type(self, page: Page, loc: Locator, text: str, press_enter: bool) -> None:
        timeout = self.config.action_timeout_ms
        try:
            await loc.fill(text, timeout=timeout)
        except PlaywrightError as exc:
            # A custom text widget (role textbox/combobox on a div): type like a user.
            if "not an <input>" not in str(exc):
                raise
            role = await loc.get_attribute("role", timeout=timeout)
            if role not in VALUE_ROLES:
                raise ActionFailed("the element is not a text field; type into a textbox, "
                                   "searchbox or combobox") from None
            await loc.click(timeout=timeout)
            await page.keyboard.press("ControlOrMeta+a")
            await page.keyboard.type(text)
        if press_enter:
            await loc.press("Enter", timeout=timeout)

    async def _select(self, page: Page, loc: Locator, value: str) -> None:
        """Native <select>: by label, then by value. ARIA combobox/listbox: open it and click
        the option with that accessible name; an autocomplete input is typed into first."""
        timeout = self.config.action_timeout_ms
        index = await loc.evaluate(_OPTION_INDEX, value, timeout=timeout)
        if index is not None:
            if index < 0:
                raise ActionFailed(f"the list has no option {value!r}")
            await loc.select_option(index=index, timeout=timeout)
            return
        self.pointer_moved = True
        await loc.click(timeout=timeout)
        if await self._click_option(page, value):
            return
        # An autocomplete field lists options only once something is typed.
        if await loc.evaluate("e => e.tagName === 'INPUT' || e.isContentEditable"):
            await loc.fill(value, timeout=timeout)
            with contextlib.suppress(PlaywrightError):
                await page.get_by_role("option", name=value).first.wait_for(
                    timeout=min(timeout, 2_000))
            if await self._click_option(page, value):
                return
        raise ActionFailed(f"no option named {value!r} appeared after opening the element")

    async def _click_option(self, page: Page, value: str) -> bool:
        for exact in (True, False):
            option = page.get_by_role("option", name=value, exact=exact)
            if await option.count():
                await option.first.click(timeout=self.config.action_timeout_ms)
                return True
        return False

    async def _goto(self, page: Page, url: str) -> None:
        url = url.strip()
        scripted = url.lower().startswith("javascript:")  # running code is not navigating
        if "://" not in url and not scripted and not url.startswith(("about:", "data:")):
            url = urljoin(page.url, url) if url.startswith("/") else f"http://{url}"
        if scripted or self.allowlist.verdict(url) is not None:
            self.allowlist.record(url, "goto", resource_type="document")
            raise ActionFailed(f"goto blocked: {url} is outside the allowed origins "
                               f"({', '.join(sorted(self.allowlist.origins)) or 'none'})")
        await page.goto(url, timeout=self.config.navigation_timeout_ms, wait_until="load")
