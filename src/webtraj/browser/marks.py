"""Ids for what a person can act on but the accessibility tree leaves out.

A `div` with a click handler, a `span` styled as a link, a canvas, an svg shape: they have no
accessible role, so the aria snapshot gives them no line an agent can act on (10 MiniWoB++
tasks have nothing else). `LISTENER_SCRIPT` runs before the page's own scripts and notes every
element that gets a pointer listener (`addEventListener` or an `on...` property);
`MARK_SCRIPT` finds, at observation time, the visible elements that have one, a `tabindex`,
`cursor: pointer` (where the parent has none), or that are a canvas or an svg shape,
and marks each with `data-webtraj-id="nN"` (kept while the element lives, never reused within
a document). Actions by id find them by that attribute. The script also returns the last
mouse position the page saw.

Elements with a role of their own (or inside one: the span in a button) are left to the tree
(the aria snapshot gives text-level and empty elements no line, whatever their cursor).
Only the main frame is marked; iframes keep the tree's ids.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

# The attribute that carries a marked element's id, and the form of those ids.
MARK_ATTRIBUTE = "data-webtraj-id"
MARK_ID = re.compile(r"^n\d+$")
# At most this many elements are marked per observation (a page of 40,000 clickable cells
# would otherwise flood the observation).
MAX_MARKED = 400

LISTENER_SCRIPT = """(() => {
  if (window.__webtrajListen) return;
  const seen = new Set();
  window.__webtrajListen = seen;
  const POINTER = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'mouseover',
    'mouseenter', 'mousemove', 'pointerdown', 'pointerup', 'pointerover', 'touchstart',
    'contextmenu', 'dragstart', 'drop']);
  const note = (target, type) => {
    if (POINTER.has(String(type)) && target instanceof Element) seen.add(target);
  };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    try { note(this, type); } catch (e) { /* never break the page */ }
    return add.call(this, type, listener, options);
  };
  for (const proto of [HTMLElement.prototype, SVGElement.prototype]) {
    for (const type of POINTER) {
      const d = Object.getOwnPropertyDescriptor(proto, 'on' + type);
      if (!d || !d.set) continue;
      Object.defineProperty(proto, 'on' + type, {
        configurable: true, enumerable: d.enumerable, get: d.get,
        set(v) { try { if (v) note(this, type); } catch (e) {} d.set.call(this, v); },
      });
    }
  }
  window.__webtrajMouse = null;
  const track = (e) => { window.__webtrajMouse = [e.clientX, e.clientY]; };
  for (const type of ['mousemove', 'mousedown', 'mouseup']) {
    add.call(window, type, track, {capture: true, passive: true});
  }
})();"""

MARK_SCRIPT = """([attr, limit]) => {
  const listened = window.__webtrajListen || new Set();
  const ROLE_TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'LABEL',
    'SUMMARY', 'DETAILS', 'IFRAME', 'VIDEO', 'AUDIO']);
  const SHAPES = new Set(['circle', 'rect', 'ellipse', 'path', 'polygon', 'polyline', 'line',
    'text', 'image', 'use']);
  const SKIP = new Set(['HTML', 'BODY', 'HEAD', 'SCRIPT', 'STYLE']);
  const hasRole = (e) => {
    const role = (e.getAttribute('role') || '').trim();
    if (role && !['generic', 'none', 'presentation'].includes(role)) return true;
    return ROLE_TAGS.has(e.tagName) && (e.tagName !== 'A' || e.hasAttribute('href'));
  };
  const insideRole = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (hasRole(p)) return true;
    }
    return false;
  };
  const candidates = new Set();
  for (const e of listened) if (e.isConnected) candidates.add(e);
  for (const e of document.querySelectorAll(
      '[tabindex], [onclick], [onmousedown], [onmouseup], canvas, svg *, [' + attr + ']')) {
    candidates.add(e);
  }
  // A pointer cursor where the parent has none: a click target (delegated handlers too).
  const pointer = new Set();
  for (const e of document.body ? document.body.querySelectorAll('*') : []) {
    if (candidates.has(e) || SKIP.has(e.tagName) || e instanceof SVGElement) continue;
    const p = e.parentElement;
    if (getComputedStyle(e).cursor === 'pointer'
        && !(p && getComputedStyle(p).cursor === 'pointer')) {
      candidates.add(e);
      pointer.add(e);
    }
  }
  let next = window.__webtrajNext || 0;
  const out = [];
  const ordered = [...candidates].filter(e => e.isConnected && !SKIP.has(e.tagName));
  ordered.sort((a, b) => a === b ? 0 :
    (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  for (const e of ordered) {
    if (out.length >= limit) break;
    const svg = e instanceof SVGElement;
    const tag = svg ? e.tagName.toLowerCase() : e.tagName.toLowerCase();
    if (svg && !SHAPES.has(tag) && !(tag === 'svg' && listened.has(e))) continue;
    if (hasRole(e) || insideRole(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    const st = getComputedStyle(e);
    if (st.visibility === 'hidden' || st.display === 'none' || st.opacity === '0') continue;
    const reasons = [];
    if (listened.has(e) || e.hasAttribute('onclick') || e.hasAttribute('onmousedown')
        || e.hasAttribute('onmouseup')) reasons.push('clickable');
    if (e.hasAttribute('tabindex') && e.tabIndex >= 0) reasons.push('focusable');
    if (tag === 'canvas') reasons.push('canvas');
    if (svg) reasons.push('shape');
    if (!reasons.length && pointer.has(e)) reasons.push('clickable');
    if (!reasons.length) continue;
    let name = (e.getAttribute('aria-label') || e.getAttribute('title')
                || e.getAttribute('alt') || '').trim();
    if (!name && tag !== 'canvas') name = (e.textContent || '').replace(/\\s+/g, ' ').trim();
    const props = [];
    if (svg) {
      const fill = st.fill;
      if (fill && fill !== 'none') props.push('fill=' + fill);
    } else if (!name) {
      // What a person sees of an element without text: its colour, and the class that
      // names its icon (`class=reply`).
      const bg = st.backgroundColor;
      if (bg && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') props.push('color=' + bg);
      const cls = (typeof e.className === 'string' ? e.className : '').trim();
      if (cls) props.push('class=' + cls.slice(0, 40));
    }
    out.push({e, tag, name: name.slice(0, 200), reasons, props,
              box: [r.x, r.y, r.width, r.height]});
  }
  // Ids are set after every style was read: an attribute written between two reads would
  // make the browser recompute styles for each element (quadratic on a page of many).
  for (const item of out) {
    const e = item.e;
    let id = e.getAttribute(attr);
    if (!id || !/^n\\d+$/.test(id) || e.__webtrajId !== id) {
      id = 'n' + (++next);
      e.setAttribute(attr, id);
      e.__webtrajId = id;
    }
    item.id = id;
    delete item.e;
  }
  window.__webtrajNext = next;
  // One string: Playwright's structured serialization of hundreds of small objects costs
  // far more than the script itself.
  return JSON.stringify({elements: out, mouse: window.__webtrajMouse || null});
}"""


@dataclass
class MarkedElement:
    id: str
    tag: str
    name: str
    reasons: list[str]
    props: list[str]
    box: tuple[float, float, float, float]


@dataclass
class Marks:
    """What marking found: the marked elements (document order) and the mouse position."""

    elements: list[MarkedElement] = field(default_factory=list)
    mouse: tuple[float, float] | None = None
    error: str | None = None

    def lines(self, viewport: tuple[float, float] | None = None) -> list[str]:
        """One tree-like line each: `[n3] [div] [name] [clickable, color=rgb(255, 0, 0),
        box=10,20,40,40]` (the box rounded to whole pixels); with `viewport`, only those
        inside it."""
        out = []
        for e in self.elements:
            x, y, w, h = e.box
            if viewport is not None and not (x < viewport[0] and y < viewport[1]
                                             and x + w > 0 and y + h > 0):
                continue
            props = [*e.reasons, *e.props, f"box={round(x)},{round(y)},{round(w)},{round(h)}"]
            out.append(f"[{e.id}] [{e.tag}] [{_escape(e.name)}] "
                       f"[{', '.join(_escape(p) for p in props)}]")
        return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


async def mark_elements(page: Page, limit: int = MAX_MARKED) -> Marks:
    """Mark the page's role-less interactive elements; a page that cannot be read gives no
    marks and says why (the observation names it)."""
    try:
        raw = json.loads(await page.evaluate(MARK_SCRIPT, [MARK_ATTRIBUTE, limit]))
    except (PlaywrightError, TypeError, ValueError) as exc:
        text = str(exc).strip().splitlines()
        return Marks(error=f"cannot mark elements without a role: {text[0] if text else exc}")
    elements = [MarkedElement(id=str(e["id"]), tag=str(e["tag"]), name=str(e["name"]),
                              reasons=[str(r) for r in e["reasons"]],
                              props=[str(p) for p in e["props"]],
                              box=tuple(float(v) for v in e["box"]))  # type: ignore[arg-type]
                for e in raw.get("elements", [])]
    mouse = raw.get("mouse")
    return Marks(elements=elements,
                 mouse=(float(mouse[0]), float(mouse[1])) if mouse else None)
