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
import time

import orjson
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from webtraj.browser.axtree import TreeText, TreeTooDeep, format_tree, parse_aria_snapshot
from webtraj.browser.config import EnvConfig
from webtraj.browser.env_results import BrowserObservation
from webtraj.browser.html_clean import clean_html
from webtraj.browser.marks import Marks, mark_elements
from webtraj.browser.passwords import mask_values, password_values
from webtraj.browser.som import MarksUnavailable, draw_marks
from webtraj.browser.tabs import TabManager
from webtraj.formats.image_header import image_size
from webtraj.model.episode import DialogRecord

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


# Elements of the document and of its same-origin frames (what the tree would have to read),
# and how deeply the main document nests (walked with a stack: no recursion to exhaust).
_PAGE_SIZE = """() => {
  let n = document.getElementsByTagName('*').length;
  for (const f of document.querySelectorAll('iframe, frame')) {
    try { n += f.contentDocument ? f.contentDocument.getElementsByTagName('*').length : 0; }
    catch (e) { /* another origin: its own frame reads it */ }
  }
  let depth = 0;
  const stack = document.documentElement ? [[document.documentElement, 1]] : [];
  while (stack.length) {
    const [el, d] = stack.pop();
    if (d > depth) depth = d;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push([c, d + 1]);
  }
  return [n, depth];
}"""


async def read_tree(page: Page, config: EnvConfig) -> TreeText:
    """The flattened accessibility tree, retried when a frame detaches mid-extraction.
    A page over the size bounds is not read (`PageTooLarge`)."""
    last: Exception | None = None
    for attempt in range(config.extraction_retries + 1):
        try:
            elements, depth = await page.evaluate(_PAGE_SIZE)
            if elements > config.max_page_elements:
                raise PageTooLarge(
                    f"the page has {elements:,} elements, over the bound of "
                    f"{config.max_page_elements:,} (EnvConfig.max_page_elements)")
            if depth > config.max_page_depth:
                raise PageTooLarge(
                    f"the page nests {depth:,} elements deep, over the bound of "
                    f"{config.max_page_depth:,} (EnvConfig.max_page_depth)")
            # Boxes cost ~1 ms and give each element's box as the screenshot shows it (the
            # acted element's box is drawn from them, with no round trip of its own).
            snapshot = await page.aria_snapshot(
                mode="ai", boxes=True, timeout=config.capture_timeout_ms)
            if len(snapshot) > config.max_tree_chars:
                raise PageTooLarge(
                    f"the accessibility tree has {len(snapshot):,} characters, over the "
                    f"bound of {config.max_tree_chars:,} (EnvConfig.max_tree_chars)")
            try:
                roots = parse_aria_snapshot(snapshot, max_depth=config.max_page_depth)
            except TreeTooDeep as exc:
                raise PageTooLarge(str(exc)) from None
            return format_tree(
                roots, visible_only=config.visible_only,
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


class PageTooLarge(ExtractionError):
    """The page is over a size bound: not read at all (the same answer on any machine)."""

    def __init__(self, why: str) -> None:
        super().__init__(f"cannot read the accessibility tree: {why}")


def _first_line(exc: Exception | None) -> str:
    return str(exc).strip().splitlines()[0] if exc and str(exc).strip() else repr(exc)


async def _title(page: Page, timeout_s: float) -> str:
    for _ in range(3):
        try:
            return await asyncio.wait_for(page.title(), timeout=timeout_s)
        except (PlaywrightError, TimeoutError):
            await asyncio.sleep(0.05)
    return ""


# JSON-LD kept per page: blocks past these bounds are left out, and the observation says so.
MAX_JSON_LD_BLOCKS = 64
MAX_JSON_LD_CHARS = 1_000_000
MAX_JSON_LD_DEPTH = 64
# Texts of the blocks, each cut at one character past the bound (its length tells it is over).
_JSON_LD = """(els, max) => els.map(e => (e.textContent || "").slice(0, max + 1))"""


async def structured_data(page: Page) -> tuple[tuple, list[str]]:
    """The page's JSON-LD blocks, parsed, and what was left out and why: blocks that are not
    valid JSON, too large, nested too deeply, or past the number kept."""
    try:
        texts = await page.eval_on_selector_all('script[type="application/ld+json"]',
                                                _JSON_LD, MAX_JSON_LD_CHARS)
    except PlaywrightError:
        return (), []
    out: list = []
    skipped: list[str] = []
    for i, text in enumerate(texts):
        if len(out) == MAX_JSON_LD_BLOCKS:
            skipped.append(f"{len(texts) - i} blocks past the first {MAX_JSON_LD_BLOCKS}")
            break
        if len(text) > MAX_JSON_LD_CHARS:
            skipped.append(f"block {i} over {MAX_JSON_LD_CHARS:,} characters")
            continue
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if "depth" in str(exc).lower() or "recursion" in str(exc).lower():
                skipped.append(f"block {i} nested deeper than {MAX_JSON_LD_DEPTH} levels")
            continue  # not JSON: a page's mistake, not data
        if _depth_over(value, MAX_JSON_LD_DEPTH):
            skipped.append(f"block {i} nested deeper than {MAX_JSON_LD_DEPTH} levels")
            continue
        out.append(value)
    return tuple(out), skipped


def _depth_over(value: object, limit: int) -> bool:
    """Is `value` nested deeper than `limit` (iteratively: no recursion to exhaust)?"""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, list):
            continue
        if depth > limit:
            return True
        stack.extend((x, depth + 1) for x in v if isinstance(x, dict | list))
    return False


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
            timeout=config.capture_timeout_ms)
    params: dict[str, object] = {"format": fmt, "optimizeForSpeed": True}
    if fmt != "png":
        params["quality"] = config.screenshot_quality
    reply = await asyncio.wait_for(session.send("Page.captureScreenshot", params),
                                   timeout=config.capture_timeout_ms / 1000)
    return base64.b64decode(reply["data"])


async def capture(page: Page, tabs: TabManager, config: EnvConfig, *,
                  error: str | None = None, dialogs: tuple[DialogRecord, ...] = (),
                  session: CDPSession | None = None,
                  times: dict[str, float] | None = None,
                  secrets: set[str] | None = None) -> BrowserObservation:
    """Read the page, its parts concurrently; a part that cannot be read is left empty and
    named in the error. `times` receives each part's duration in seconds. `secrets`: values
    the episode's password fields held before (masked too; the values read now are added)."""
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
            content = await page.content()
        except PlaywrightError as exc:
            problems["html"] = f"cannot read the HTML: {_first_line(exc)}"
            return None
        if len(content) > config.max_html_chars:
            problems["html"] = (f"HTML not kept: {len(content):,} characters, over the bound "
                                f"of {config.max_html_chars:,} (EnvConfig.max_html_chars)")
            return None
        return clean_html(content)

    async def data_part() -> tuple:
        if not config.structured_data:
            return ()
        data, skipped = await structured_data(page)
        if skipped:
            problems["structured_data"] = "JSON-LD left out: " + "; ".join(skipped)
        return data

    async def marks_part() -> Marks:
        if not config.mark_elements:
            return Marks()
        marks = await mark_elements(page)
        if marks.error:
            problems["marks"] = marks.error
        return marks

    t0 = time.perf_counter()
    # Read with the tree: password values are masked before the observation exists.
    passwords = asyncio.ensure_future(password_values(page))
    tree, png, html, data, tab_list, marks = await asyncio.gather(
        _timed(times, "tree", tree_part()), _timed(times, "screenshot", screenshot_part()),
        _timed(times, "html", html_part()), _timed(times, "structured_data", data_part()),
        _timed(times, "tabs", tabs.describe(config.capture_timeout_ms / 1000)),
        _timed(times, "marks", marks_part()))
    times["capture"] = time.perf_counter() - t0
    tabs.ref_prefix[page] = tree.ref_prefix
    title = next((t.title for t in tab_list if t.active), "") or \
        await _title(page, config.capture_timeout_ms / 1000)
    viewport = ((config.viewport_width, config.viewport_height) if config.visible_only
                else None)
    # An element the tree already shows with its text (the same box) keeps the tree's id
    # alone; shapes and elements without text keep their line, which says what they look
    # like (tag, fill, colour).
    tree_boxes = {tuple(round(v) for v in b) for b in tree.boxes.values()}
    marks.elements = [e for e in marks.elements if "shape" in e.reasons or not e.name
                      or tuple(round(v) for v in e.box) not in tree_boxes]
    marked = marks.lines(viewport)
    shown = {line[1:line.index("]")] for line in marked}
    values = await passwords
    if secrets is not None:
        secrets.update(values)
        values = secrets
    text = mask_values("\n".join(p for p in (tree.text, "\n".join(marked)) if p),
                       values=values)
    boxes = {**tree.boxes, **{e.id: e.box for e in marks.elements if e.id in shown}}
    som = None
    if config.set_of_marks and png is not None and not config.full_page_screenshot:
        try:
            dpr = _pixel_ratio(png, config) or 1.0  # boxes: CSS pixels; the image: its own
            som = await asyncio.to_thread(draw_marks, png, {
                k: (x * dpr, y * dpr, w * dpr, h * dpr) for k, (x, y, w, h) in boxes.items()})
        except (MarksUnavailable, OSError) as exc:
            problems["set_of_marks"] = f"no set-of-marks screenshot: {exc}"
    return BrowserObservation(
        url=page.url, title=title, tabs=tab_list, axtree=text, som_png=som,
        html=html, screenshot_png=png, focused=tree.focused,
        last_action_error="; ".join(
            p for p in (error, *(problems.get(k) for k in (
                "tree", "screenshot", "html", "structured_data", "marks", "set_of_marks")))
            if p
        ) or None,
        unreadable=problems.get("tree"), dialogs=dialogs,
        element_ids=(*tree.ids, *(e.id for e in marks.elements if e.id in shown)),
        structured_data=data,
        element_boxes=boxes, mouse=marks.mouse,
        device_pixel_ratio=_pixel_ratio(png, config))


def _pixel_ratio(png: bytes | None, config: EnvConfig) -> float | None:
    """Screenshot pixels per CSS pixel, measured on the image (Chromium's capture may or may
    not follow the context's device scale factor); None when 1 or unknown."""
    size = image_size(png) if png is not None and not config.full_page_screenshot else None
    if size is None:
        return None
    ratio = round(size[0] / config.viewport_width, 4)
    return None if ratio == 1 else ratio
