"""Test pages for the browser layer, served by a threaded `http.server` on 127.0.0.1."""
# ruff: noqa: E501  (inline HTML and scripts read better unwrapped)

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


def _page(title: str, body: str, head: str = "") -> str:
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
            f"{head}</head><body>{body}</body></html>")


FORM = _page("Search stays", """
<h1>Find a stay</h1>
<form action="/results" method="get">
  <label for="city">City</label> <input id="city" name="city" placeholder="Where to?">
  <label for="guests">Guests</label>
  <select id="guests" name="guests"><option value="1">One</option>
    <option value="2">Two</option><option value="3">Three</option></select>
  <label><input type="checkbox" name="pets" value="yes"> Pets allowed</label>
  <button type="submit">Search</button>
</form>
<button id="hov" onmouseenter="document.getElementById('hv').textContent='hovered'">Hover me</button>
<p id="hv">not hovered</p>
<button disabled>Unavailable</button>
<div onclick="this.textContent='div clicked'" style="cursor:pointer">Clickable div</div>
<button id="grow" onclick="this.textContent='Clicked ' + (++window.n || (window.n = 1))">Count</button>
<a href="/form#top">Same page</a> <a href="/other">Other page</a>
<script>window.addEventListener('keydown', e => { if (e.key === 'Escape') document.title = 'Escaped'; });</script>
""")

OTHER = _page("Other page", "<h1>Other</h1><a href='/form'>Back to form</a>")

COMBOBOX = _page("Combobox", """
<h1>Pick a destination</h1>
<div id="cb" role="combobox" tabindex="0" aria-label="Destination" aria-expanded="false"
     aria-controls="lb" aria-haspopup="listbox">Choose…</div>
<ul id="lb" role="listbox" hidden>
  <li role="option" aria-selected="false">Paris</li>
  <li role="option" aria-selected="false">Rome</li>
  <li role="option" aria-selected="false">Lisbon</li>
</ul>
<p id="chosen">none</p>
<script>
const cb = document.getElementById('cb'), lb = document.getElementById('lb');
cb.addEventListener('click', () => { lb.hidden = !lb.hidden; cb.setAttribute('aria-expanded', String(!lb.hidden)); });
for (const o of lb.querySelectorAll('[role=option]')) o.addEventListener('click', () => {
  cb.textContent = o.textContent; lb.hidden = true; cb.setAttribute('aria-expanded', 'false');
  o.setAttribute('aria-selected', 'true'); document.getElementById('chosen').textContent = 'chose ' + o.textContent; });
</script>
""")

AUTOCOMPLETE = _page("Autocomplete", """
<label for="dest">Destination</label>
<input id="dest" role="combobox" aria-expanded="false" aria-controls="sugg" aria-autocomplete="list">
<ul id="sugg" role="listbox"></ul>
<p id="picked">nothing</p>
<script>
const cities = ['Paris', 'Parma', 'Porto', 'Rome'];
const inp = document.getElementById('dest'), ul = document.getElementById('sugg');
inp.addEventListener('input', () => setTimeout(() => {
  ul.innerHTML = ''; if (!inp.value) return;
  for (const c of cities.filter(c => c.toLowerCase().startsWith(inp.value.toLowerCase()))) {
    const li = document.createElement('li'); li.setAttribute('role', 'option'); li.textContent = c;
    li.onclick = () => { inp.value = c; ul.innerHTML = ''; document.getElementById('picked').textContent = 'picked ' + c; };
    ul.appendChild(li); }
  inp.setAttribute('aria-expanded', String(ul.children.length > 0)); }, 50));
</script>
""")

IFRAME = _page("Frames", """
<h1>Outer</h1><iframe src="/inner" title="Inner frame" width="400" height="200"></iframe>
""")
INNER = _page("Inner", """
<button onclick="document.getElementById('r').textContent='inner clicked'">Inner button</button>
<p id="r">waiting</p>
""")

POPUP = _page("Popups", """
<a href="/other" target="_blank">Open in new tab</a>
<button onclick="window.open('/combobox')">Open popup</button>
""")

DIALOGS = _page("Dialogs", """
<button onclick="alert('hello from alert')">Alert me</button>
<button onclick="document.getElementById('c').textContent = confirm('Sure?') ? 'yes' : 'no'">Confirm me</button>
<p id="c">unanswered</p>
""")

SLOW = _page("Slow", """
<button onclick="fetch('/api/slow').then(r => r.text()).then(t => document.getElementById('s').textContent = t)">Load data</button>
<p id="s">nothing yet</p>
""")

EXTERNAL = _page("External", """
<h1>Has an external script</h1>
<script src="http://198.51.100.1/x.js"></script>
<img src="http://203.0.113.9/pixel.png" alt="pixel">
""")

SCROLL = _page("Tall", "<h1>Top</h1>" + "".join(
    f"<p>Paragraph {i}</p>" for i in range(200)) + "<button>Bottom button</button>")

DETACH = _page("Detaching frames", """
<h1>Frames come and go</h1><div id="box"></div>
<script>
setInterval(() => { const b = document.getElementById('box'); b.innerHTML = '';
  const f = document.createElement('iframe'); f.src = '/inner'; b.appendChild(f); }, 15);
</script>
""")


def big_page(rows: int = 100) -> str:
    """About 1,000 elements: a table of links, text, buttons and inputs."""
    body = "".join(
        f'<tr><td><a href="/item/{i}">Item {i}</a></td><td><span>Price {i}</span></td>'
        f'<td><button>Buy {i}</button></td><td><input aria-label="qty {i}"></td></tr>'
        for i in range(rows))
    return _page("Big page", "<h1>Big page</h1><button id=go onclick=\"document."
                 "getElementById('out').textContent='clicked '+Date.now()\">Go</button>"
                 f"<p id=out>ready</p><table>{body}</table>")


def hints_page(port: int) -> str:
    """Speculative-connection hints towards another loopback port (which must see nothing)."""
    other = f"127.0.0.1:{port}"
    return _page("Hints", f"<h1>Hints</h1><a href='http://{other}/next'>Next</a>", head=(
        f'<link rel="preconnect" href="http://{other}">'
        f'<link rel="preconnect" href="http://{other}" crossorigin>'
        f'<link rel="dns-prefetch" href="//{other}">'
        f'<link rel="prefetch" href="http://{other}/prefetched">'
        '<script type="speculationrules">{"prefetch": [{"source": "list", "urls": '
        f'["http://{other}/speculated"]}}], "prerender": [{{"source": "list", "urls": '
        f'["http://{other}/prerendered"]}}]}}</script>'))

# Results drawn after what a fixed network-quiet window misses: a timer after a fetch, a
# debounce before a fetch, an animation frame after an XHR; and a page that polls forever.
SETTLE = _page("Settle", """
<button onclick="fetch('/api/slow').then(r => r.text()).then(t => setTimeout(() => {
  document.getElementById('a').textContent = 'A: ' + t}, 150))">Fetch then timer</button>
<p id="a">A: none</p>
<input aria-label="Debounced" oninput="clearTimeout(window.dt); window.dt = setTimeout(() =>
  fetch('/api/slow').then(r => r.text()).then(t =>
    document.getElementById('b').textContent = 'B: ' + t), 250)">
<p id="b">B: none</p>
<button onclick="const x = new XMLHttpRequest(); x.open('GET', '/api/slow');
  x.onload = () => requestAnimationFrame(() => {
    document.getElementById('c').textContent = 'C: ' + x.responseText});
  x.send()">XHR then frame</button>
<p id="c">C: none</p>
<button onclick="setInterval(() => fetch('/item/poll'), 40)">Poll forever</button>
""")

# Things a person acts on that have no accessible role: a div with a click listener, a div
# with an onclick property, a hover target, an svg circle, a focusable span, a drawing canvas.
POINTER = _page("Pointer", """
<style>body { margin: 0 } #pad { position: absolute; left: 0; top: 0; width: 200px;
  height: 100px; background: rgb(255, 0, 0) } #prop { position: absolute; left: 220px; top: 0;
  width: 60px; height: 60px; background: rgb(0, 0, 255) } #hov { position: absolute;
  left: 300px; top: 0; width: 60px; height: 60px; background: rgb(0, 128, 0) }
  svg { position: absolute; left: 0; top: 120px } canvas { position: absolute; left: 0;
  top: 260px; border: 1px solid black } #log { position: absolute; left: 420px; top: 0 }
  #key { position: absolute; left: 300px; top: 80px }</style>
<div id="pad"></div><div id="prop"></div><div id="hov"></div>
<svg width="300" height="120"><circle id="dot" cx="50" cy="50" r="20" fill="purple"></circle>
</svg>
<span id="key" tabindex="0">Focus me</span>
<canvas id="cv" width="300" height="150"></canvas>
<p id="log">none</p>
<script>
const log = (t) => { document.getElementById('log').textContent = t; };
document.getElementById('pad').addEventListener('click',
  (e) => log('pad clicked at ' + e.clientX + ',' + e.clientY));
document.getElementById('pad').addEventListener('dblclick', () => log('pad double-clicked'));
document.getElementById('prop').onclick = () => log('prop clicked');
document.getElementById('hov').addEventListener('mouseover', () => log('hovered'));
document.getElementById('dot').addEventListener('click', () => log('dot clicked'));
document.getElementById('key').addEventListener('keydown', (e) => log('key ' + e.key));
const cv = document.getElementById('cv');
let from = null, moves = 0;
cv.addEventListener('mousedown', (e) => { from = [e.offsetX, e.offsetY]; moves = 0; });
cv.addEventListener('mousemove', () => { if (from) moves++; });
cv.addEventListener('mouseup', (e) => {
  log('drew from ' + from + ' to ' + e.offsetX + ',' + e.offsetY + ' in ' + moves + ' moves');
  from = null; });
</script>
""")

PAGES = {
    "/pointer": POINTER,
    "/form": FORM, "/other": OTHER, "/combobox": COMBOBOX, "/autocomplete": AUTOCOMPLETE, "/iframe": IFRAME, "/inner": INNER,
    "/popup": POPUP, "/dialogs": DIALOGS, "/slow": SLOW, "/external": EXTERNAL,
    "/scroll": SCROLL, "/settle": SETTLE, "/detach": DETACH, "/big": big_page(),
}


class SiteServer:
    """A loopback HTTP server; `hits` counts requests per path (to prove what was sent)."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                parts = urlsplit(self.path)
                site.hits[parts.path] += 1
                if parts.path == "/results":
                    q = parse_qs(parts.query)
                    text = ", ".join(f"{k}={v[0]}" for k, v in sorted(q.items()))
                    self._send(_page("Results", f"<h1>Results</h1><p>{text}</p>"))
                elif parts.path == "/redirect":  # 302 to ?to=, wherever that is
                    self.send_response(302)
                    self.send_header("Location", parse_qs(parts.query)["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif parts.path == "/hints":  # resource hints to 127.0.0.1:?port=
                    self._send(hints_page(int(parse_qs(parts.query)["port"][0])))
                elif parts.path == "/api/slow":
                    time.sleep(0.3)
                    self._send("slow data arrived", "text/plain")
                elif parts.path.startswith("/item/"):
                    self._send(_page("Item", f"<h1>{parts.path}</h1>"))
                elif parts.path in PAGES:
                    self._send(PAGES[parts.path])
                else:
                    self.send_error(404)

            def _send(self, text: str, ctype: str = "text/html; charset=utf-8") -> None:
                data = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                # The browser may drop a frame it no longer needs mid-response.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return self.origin + path

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
