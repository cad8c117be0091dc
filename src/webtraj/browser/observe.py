"""Capturing one observation of the active tab: URL, title, tabs, tree, screenshot, HTML.

The parts are read concurrently (the tree is computed in the page, the screenshot by the
compositor, titles by the browser): an observation costs about its slowest part, not their
sum. The screenshot is taken with CDP's `Page.captureScreenshot` in speed mode: for PNG the
same pixels with lighter compression (about 40% faster than Playwright's `screenshot`, files
~40% larger); JPEG and WebP are lossy options. The text caret is hidden in every document (as
Playwright's screenshots do) so that a blinking caret never makes two captures differ.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.browser.axtree import TreeText, format_tree, parse_aria_snapshot
from webtraj.browser.config import EnvConfig
from webtraj.browser.html_clean import clean_html
from webtraj.browser.records import BrowserObservation, DialogRecord
from webtraj.browser.tabs import TabManager

# Installed in every document: a blinking caret must never make two captures differ.
HIDE_CARET_SCRIPT = """(() => {
  const hide = () => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("*, *::before, *::after { caret-color: transparent !important; }");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  };
  try { hide(); } catch (e) { /* a document that takes no style sheets */ }
})();"""

# Errors that mean "the document changed under us": worth a retry after the page settles.
_TRANSIENT = ("detached", "context was destroyed", "navigat", "target closed", "crashed")


def _transient(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(t in text for t in _TRANSIENT)


async def read_tree(page: Page, config: EnvConfig) -> TreeText:
    """The flattened accessibility tree, retried when a frame detaches mid-extraction."""
    last: Exception | None = None
    for attempt in range(config.extraction_retries + 1):
        try:
            # Boxes cost ~1 ms and give each element's box as the screenshot shows it (the
            # acted element's box is drawn from them, with no round trip of its own).
            snapshot = await page.aria_snapshot(
                mode="ai", boxes=True, timeout=config.action_timeout_ms)
            return format_tree(
                parse_aria_snapshot(snapshot), visible_only=config.visible_only,
                viewport=(config.viewport_width, config.viewport_height))
        except PlaywrightError as exc:
            last = exc
            if attempt == config.extraction_retries or not _transient(exc):
                break
            try:
                await page.wait_for_load_state("domcontentloaded",
                                               timeout=config.settle_timeout_ms or 1)
            except PlaywrightError:
                await asyncio.sleep(0.05)
    raise ExtractionError(f"cannot read the accessibility tree: {_first_line(last)}")


class ExtractionError(RuntimeError):
    """The page could not be read even after retries."""


def _first_line(exc: Exception | None) -> str:
    return str(exc).strip().splitlines()[0] if exc and str(exc).strip() else repr(exc)


async def _title(page: Page) -> str:
    for _ in range(3):
        try:
            return await asyncio.wait_for(page.title(), timeout=2.0)
        except (PlaywrightError, TimeoutError):
            await asyncio.sleep(0.05)
    return ""


_JSON_LD = """els => els.map(e => e.textContent || "").filter(t => t.length < 2000000)"""


async def structured_data(page: Page) -> tuple:
    """The page's JSON-LD blocks, parsed; blocks that are not valid JSON are skipped."""
    try:
        texts = await page.eval_on_selector_all('script[type="application/ld+json"]', _JSON_LD)
    except PlaywrightError:
        return ()
    out = []
    for text in texts:
        try:
            out.append(json.loads(text))
        except ValueError:
            continue
    return tuple(out)


async def _timed(times: dict[str, float], name: str, work):
    t0 = time.perf_counter()
    try:
        return await work
    finally:
        times[name] = time.perf_counter() - t0


async def screenshot(page: Page, session: CDPSession | None, config: EnvConfig) -> bytes:
    """The viewport (or the full page) as the configured format, the fastest way Chromium
    offers; falls back to Playwright's screenshot when no CDP session is available."""
    fmt = config.screenshot_format
    if session is None or config.full_page_screenshot:
        return await page.screenshot(
            type="jpeg" if fmt == "jpeg" else "png", full_page=config.full_page_screenshot,
            quality=config.screenshot_quality if fmt == "jpeg" else None,
            timeout=config.action_timeout_ms)
    params: dict[str, object] = {"format": fmt, "optimizeForSpeed": True}
    if fmt != "png":
        params["quality"] = config.screenshot_quality
    reply = await asyncio.wait_for(session.send("Page.captureScreenshot", params),
                                   timeout=config.action_timeout_ms / 1000)
    return base64.b64decode(reply["data"])


async def capture(page: Page, tabs: TabManager, config: EnvConfig, *,
                  error: str | None = None, dialogs: tuple[DialogRecord, ...] = (),
                  session: CDPSession | None = None,
                  times: dict[str, float] | None = None) -> BrowserObservation:
    """Read the page, its parts concurrently; a part that cannot be read is left empty and
    named in the error. `times` receives each part's duration in seconds."""
    times = {} if times is None else times
    # Problems by part, reported in a fixed order whatever part finished first.
    problems: dict[str, str] = {}

    async def tree_part() -> TreeText:
        try:
            return await read_tree(page, config)
        except ExtractionError as exc:
            problems["tree"] = str(exc)
            return TreeText(text="", focused=None, ids=[])

    async def screenshot_part() -> bytes | None:
        if not config.screenshot:
            return None
        try:
            return await screenshot(page, session, config)
        except (PlaywrightError, TimeoutError) as exc:
            problems["screenshot"] = f"cannot take a screenshot: {_first_line(exc)}"
            return None

    async def html_part() -> str | None:
        if not config.html:
            return None
        try:
            return clean_html(await page.content())
        except PlaywrightError as exc:
            problems["html"] = f"cannot read the HTML: {_first_line(exc)}"
            return None

    async def data_part() -> tuple:
        return await structured_data(page) if config.structured_data else ()

    t0 = time.perf_counter()
    tree, png, html, data, tab_list = await asyncio.gather(
        _timed(times, "tree", tree_part()), _timed(times, "screenshot", screenshot_part()),
        _timed(times, "html", html_part()), _timed(times, "structured_data", data_part()),
        _timed(times, "tabs", tabs.describe()))
    times["capture"] = time.perf_counter() - t0
    tabs.ref_prefix[page] = tree.ref_prefix
    title = next((t.title for t in tab_list if t.active), "") or await _title(page)
    return BrowserObservation(
        url=page.url, title=title, tabs=tab_list, axtree=tree.text,
        html=html, screenshot_png=png, focused=tree.focused,
        last_action_error="; ".join(
            p for p in (error, *(problems.get(k) for k in ("tree", "screenshot", "html"))) if p
        ) or None,
        dialogs=dialogs, element_ids=tuple(tree.ids), structured_data=data,
        element_boxes=tree.boxes)
