"""The capture script injected into every document of a recorded tab.

It listens (capture phase, so a page's own handlers cannot hide an event) for trusted
input only - clicks (on the element under the button when it went down), drags (press,
move, release), text input, select changes, key presses, wheel scrolls (with the pointer's
position when they scroll an inner element, not the page), hovers on elements that react
to the pointer (a `:hover` rule revealing something, or the DOM changing right after the
pointer came) - and reports each
one with the role and accessible name of the element it hit (climbing from a `<span>` to
its button, from a `<label>` to its control), and the id the observation marked on an
element without a role, through the `__webtrajRecord` binding. It never changes the page
(no attribute, no style), so what is observed is what the site draws. Names are computed
the way the accessibility tree computes them for ordinary markup (aria-labelledby,
aria-label, `<label>`, content, title, placeholder); the recorder matches them to the
observation's element ids and keeps them as a fallback target."""

BINDING = "__webtrajRecord"

CAPTURE_SCRIPT = r"""(() => {
  if (window.top !== window || window.__webtrajRecording) return;
  window.__webtrajRecording = true;
  const send = (ev) => {
    try { window.__webtrajRecord(Object.assign({time: Date.now() / 1000}, ev)); } catch (e) {}
  };
  const ACTIONABLE = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox',
    'radio', 'option', 'menuitem', 'tab', 'switch', 'spinbutton', 'slider', 'listbox',
    'gridcell', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const FROM_CONTENT = new Set(['button', 'link', 'option', 'checkbox', 'radio', 'menuitem',
    'tab', 'switch', 'heading', 'cell', 'gridcell', 'treeitem', 'menuitemcheckbox',
    'menuitemradio', 'columnheader', 'rowheader', 'tooltip']);
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const TEXT_TYPES = new Set(['', 'text', 'email', 'tel', 'url', 'password', 'search']);
  function role(el) {
    const explicit = norm(el.getAttribute('role')).split(' ')[0];
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return el.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'option') return 'option';
    if (tag === 'img') return 'img';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'li') return 'listitem';
    if (tag === 'input') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'number') return 'spinbutton';
      if (t === 'range') return 'slider';
      if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
      if (el.hasAttribute('list')) return 'combobox';
      if (t === 'search') return 'searchbox';
      return 'textbox';
    }
    if (el.isContentEditable) return 'textbox';
    return 'generic';
  }
  function hidden(el) {
    if (el.getAttribute && el.getAttribute('aria-hidden') === 'true') return true;
    if (el.hidden) return true;
    const st = getComputedStyle(el);
    return st.display === 'none' || st.visibility === 'hidden';
  }
  function textOf(node) {
    let out = '';
    for (const ch of node.childNodes) {
      if (ch.nodeType === 3) { out += ch.data; continue; }
      if (ch.nodeType !== 1 || hidden(ch)) continue;
      const tag = ch.tagName.toLowerCase();
      if (tag === 'script' || tag === 'style' || tag === 'template') continue;
      const label = ch.getAttribute('aria-label');
      let part;
      if (label && label.trim()) part = label;
      else if (tag === 'img') part = ch.getAttribute('alt') || '';
      else if (tag === 'input' || tag === 'select' || tag === 'textarea') part = '';
      else part = textOf(ch);
      const inline = getComputedStyle(ch).display.startsWith('inline');
      out += inline ? part : ' ' + part + ' ';
    }
    return out;
  }
  function name(el, r) {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = norm(by.split(/\s+/).map((id) => document.getElementById(id))
        .filter(Boolean).map((e) => textOf(e)).join(' '));
      if (t) return t;
    }
    const label = norm(el.getAttribute('aria-label'));
    if (label) return label;
    if (el.labels && el.labels.length) {
      const t = norm([...el.labels].map((l) => textOf(l)).join(' '));
      if (t) return t;
    }
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(el.type))
      return norm(el.value) ||
        (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
    if (tag === 'img' || (tag === 'input' && el.type === 'image'))
      return norm(el.getAttribute('alt'));
    if (FROM_CONTENT.has(r)) { const t = norm(textOf(el)); if (t) return t; }
    return norm(el.getAttribute('title')) || norm(el.getAttribute('placeholder'));
  }
  // The element a person meant: the nearest actionable ancestor, a label's control.
  function meant(el) {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e.tagName === 'LABEL' && e.control) return e.control;
      if (ACTIONABLE.has(role(e))) return e;
    }
    return el;
  }
  const shownNow = (e) => e.checkVisibility ? e.checkVisibility({visibilityProperty: true})
    : e.getClientRects().length > 0;
  // The element's rank among the visible elements of the same role and name.
  function nth(el, r, n) {
    const same = [...document.querySelectorAll(el.tagName + ',[role]')].filter((e) =>
      role(e) === r && shownNow(e) && name(e, r) === n);
    return Math.max(0, same.indexOf(el));
  }
  function describe(raw) {
    const el = meant(raw);
    const r = role(el);
    const n = name(el, r);
    const box = el.getBoundingClientRect();
    // An element without a role has the id the observation marked it with (marks.py).
    const marked = raw.closest('[data-webtraj-id]');
    return {role: r, name: n, nth: nth(el, r, n), tag: el.tagName.toLowerCase(),
            input_type: (el.getAttribute('type') || '').toLowerCase(),
            raw_tag: raw.tagName.toLowerCase(),
            mark: marked ? marked.getAttribute('data-webtraj-id') : null,
            box: [box.x, box.y, box.width, box.height]};
  }
  const isText = (el) => el && ((el.tagName === 'INPUT' && (TEXT_TYPES.has(el.type) ||
    el.type === 'number')) || el.tagName === 'TEXTAREA' || el.isContentEditable);
  // The element is described when the button goes down: a list that closes on mousedown
  // (a combobox's options) leaves the click itself to a common ancestor.
  let down = null;
  window.addEventListener('pointerdown', (e) => {
    if (!e.isTrusted || e.button !== 0 || !(e.target instanceof Element)) return;
    down = {target: e.target, info: describe(e.target), at: performance.now(),
            x: e.clientX, y: e.clientY};
    dragged = false;
  }, true);
  // A press, a move of more than a few pixels and a release: a drag, not a click.
  let dragged = false;
  window.addEventListener('pointerup', (e) => {
    if (!e.isTrusted || e.button !== 0 || !down) return;
    if (Math.hypot(e.clientX - down.x, e.clientY - down.y) < 6) return;
    dragged = true;
    send({type: 'drag', target: down.info, x: down.x, y: down.y, to_x: e.clientX,
          to_y: e.clientY});
    down = null;
  }, true);
  let skipClick = null;
  window.addEventListener('click', (e) => {
    if (!e.isTrusted || !(e.target instanceof Element)) return;
    if (dragged) { dragged = false; return; }  // the click a drag ends with
    // A keyboard activation (Enter/Space) was recorded as that key press.
    if (e.detail === 0 && e.pointerType !== 'mouse' && e.pointerType !== 'touch' &&
        e.pointerType !== 'pen') return;
    if (skipClick && e.target === skipClick) { skipClick = null; return; }
    const label = e.target.closest('label');
    skipClick = label && label.control ? label.control : null;
    const press = down && performance.now() - down.at < 5000 ? down : null;
    down = null;
    const hit = press ? press.target : e.target;
    if (hit.closest('select')) return;  // opening a select: its change is the action
    send({type: 'click', target: press ? press.info : describe(e.target),
          x: e.clientX, y: e.clientY});
  }, true);
  window.addEventListener('input', (e) => {
    const el = e.target;
    if (!e.isTrusted || !isText(el)) return;
    // A password never leaves the page: the step says a value was typed, not which.
    send({type: 'input', target: describe(el),
          value: el.type === 'password' ? '' : el.isContentEditable ? el.innerText : el.value});
  }, true);
  window.addEventListener('change', (e) => {
    const el = e.target;
    if (!e.isTrusted || !el || el.tagName !== 'SELECT') return;
    const opts = [...el.selectedOptions].map((o) => norm(o.label || o.text));
    send({type: 'select', target: describe(el), value: opts.join(', ')});
  }, true);
  window.addEventListener('keydown', (e) => {
    if (!e.isTrusted || ['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) return;
    const el = document.activeElement;
    if (el && el.tagName === 'SELECT') return;  // choosing an option: its change is the action
    const mods = [e.ctrlKey && 'Control', e.altKey && 'Alt', e.metaKey && 'Meta',
                  e.shiftKey && e.key.length > 1 && 'Shift'].filter(Boolean);
    const key = e.key === ' ' ? 'Space' : e.key;
    send({type: 'key', key: [...mods, key].join('+'), printable: e.key.length === 1 && !mods.length,
          in_text: isText(el), target: el && el !== document.body ? describe(el) : null});
  }, true);
  // The element a wheel scrolls when it is not the page: the nearest scrollable ancestor.
  function scroller(el) {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e === document.scrollingElement || e === document.body) return null;
      const o = getComputedStyle(e).overflowY;
      if ((o === 'auto' || o === 'scroll') && e.scrollHeight > e.clientHeight) return e;
    }
    return null;
  }
  let lastWheel = -Infinity;
  window.addEventListener('wheel', (e) => {
    if (!e.isTrusted || !e.deltaY) return;
    const now = performance.now();
    if (now - lastWheel < 30) return;  // one report per burst frame is enough
    lastWheel = now;
    const inner = e.target instanceof Element ? scroller(e.target) : null;
    // Over an inner scrollable element the scroll keeps its position (it scrolls that one).
    send(Object.assign({type: 'scroll', value: e.deltaY > 0 ? 'down' : 'up'},
                       inner ? {x: e.clientX, y: e.clientY} : {}));
  }, {capture: true, passive: true});
  // Hover: the pointer entered an element that reacts to it - a `:hover` rule that shows or
  // hides something else (a menu), or the page changing its DOM right after the pointer came.
  let hoverHosts = null, sheetCount = -1;
  function hosts() {
    if (hoverHosts && sheetCount === document.styleSheets.length) return hoverHosts;
    sheetCount = document.styleSheets.length;
    hoverHosts = [];
    const walk = (rules) => {
      for (const r of rules) {
        if (!r.selectorText) { if (r.cssRules) walk(r.cssRules); continue; }
        if (!r.selectorText.includes(':hover') || !(r.style.display || r.style.visibility))
          continue;
        for (const part of r.selectorText.split(',')) {
          const i = part.indexOf(':hover');
          if (i > 0 && part.slice(i + 6).trim()) hoverHosts.push(part.slice(0, i).trim());
        }
      }
    };
    for (const sheet of document.styleSheets) { try { walk(sheet.cssRules); } catch (e) {} }
    return hoverHosts;
  }
  function hoverHost(el) {
    for (const sel of hosts()) {
      try { const h = el.closest(sel); if (h) return h; } catch (e) {}
    }
    return null;
  }
  let hovered = null, pending = null;
  const reportHover = (p) => {
    if (!p || p.host === hovered) return;
    hovered = p.host;
    send({type: 'hover', target: describe(p.target), x: p.x, y: p.y});
  };
  window.addEventListener('mouseover', (e) => {
    if (!e.isTrusted || e.buttons || !(e.target instanceof Element)) return;
    // Content scrolled under a resting pointer is not the person moving it.
    if (performance.now() - lastWheel < 500) { pending = null; return; }
    const host = hoverHost(e.target);
    if (host) {
      pending = null;
      reportHover({host, target: e.target, x: e.clientX, y: e.clientY});
      return;
    }
    if (hovered && !hovered.contains(e.target)) hovered = null;
    pending = {host: e.target, target: e.target, x: e.clientX, y: e.clientY,
               at: performance.now()};
  }, true);
  window.addEventListener('pointerdown', () => { pending = null; }, true);
  // A change near the element (around it, inside it, or beside it) is the page reacting
  // to the pointer; one elsewhere (a clock, an animation) is not.
  const near = (t, el) => t.contains(el) || !!(el.parentElement &&
    el.parentElement !== document.body && el.parentElement.contains(t));
  new MutationObserver((changes) => {
    // The observation's own marks (data-webtraj-*) are not the page reacting.
    if (!pending || !changes.some((c) => !(c.type === 'attributes' &&
        (c.attributeName || '').startsWith('data-webtraj')) && near(c.target, pending.host)))
      return;
    if (pending && performance.now() - pending.at < 500) reportHover(pending);
    pending = null;
  }).observe(document, {subtree: true, childList: true, attributes: true});
  const shown = () => { if (document.visibilityState === 'visible') send({type: 'focus'}); };
  document.addEventListener('visibilitychange', shown, true);
  window.addEventListener('focus', (e) => {
    if (e.target === window) send({type: 'focus'});
  }, true);
})();"""
