"""The HAR keeps the request bodies evaluators read (issue 26, point 6): a real Chromium
episode on a loopback site POSTs a urlencoded form, a JSON fetch, a JSON body sent as
text/plain and a multipart form; the HAR stored in a run has every body (redacted), and
WebArena-Verified's NetworkEventEvaluator scores the episode 1."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest

from webtraj.browser.config import EnvConfig
from webtraj.browser.env import BrowserEnv
from webtraj.evaluate.protocol import EvalEnv
from webtraj.evaluate.registry import create
from webtraj.model import Action, ActionKind, Task, Trajectory
from webtraj.store import RunStore

SECRET_FORM = "hunter2-form-secret"
SECRET_JSON = "sk-json-secret-123456"
SECRET_MULTI = "multi-token-secret-42"

START = f"""<!doctype html><title>Book</title><h1>Book a room</h1>
<form method=post action=/book>
  <label>Room <input name=room value=deluxe></label>
  <label>Guests <input name=guests value=2></label>
  <input type=hidden name=password value={SECRET_FORM}>
  <button>Book</button>
</form>"""

BOOKED = f"""<!doctype html><title>Booked</title><h1>Booked</h1>
<button onclick="fetch('/api/confirm', {{method: 'POST', headers: {{'Content-Type':
  'application/json'}}, body: JSON.stringify({{booking: 'deluxe', nights: 3}})}})
  .then(r => r.text()).then(t => document.getElementById('out').textContent = t)">Confirm</button>
<button onclick="fetch('/api/note', {{method: 'POST', headers: {{'Content-Type': 'text/plain'}},
  body: JSON.stringify({{note: 'late arrival', api_key: '{SECRET_JSON}'}})}})
  .then(r => r.text()).then(t => document.getElementById('out').textContent = t)">Note</button>
<p id=out>waiting</p>
<form method=post action=/review enctype=multipart/form-data>
  <label>Review <input name=review value="Great stay"></label>
  <input type=hidden name=token value={SECRET_MULTI}>
  <button>Send review</button>
</form>"""


class _Hotel(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _send(self, html: str, ctype: str = "text/html") -> None:
        data = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self._send(START)

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/book":
            self._send(BOOKED)
        elif self.path.startswith("/api/"):
            self._send(f"saved {self.path}", "text/plain")
        else:
            self._send("<!doctype html><title>Thanks</title><h1>Thanks</h1>")


@pytest.fixture(scope="module")
def hotel():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hotel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _button(axtree: str, name: str) -> str:
    m = re.search(rf"\[(\w+)\] \[button\] \[{re.escape(name)}\]", axtree)
    assert m, axtree
    return m.group(1)


def _expected(url: str, post_data: dict) -> dict:
    return {"evaluator": "NetworkEventEvaluator",
            "expected": {"url": url, "http_method": "POST", "post_data": post_data}}


CHECKS = (_expected("__HOTEL__/book", {"room": "deluxe", "guests": "2"}),
          _expected("__HOTEL__/api/confirm", {"booking": "deluxe", "nights": 3}),
          _expected("__HOTEL__/review", {"review": "Great stay"}))


async def _episode(browser, url: str, har, **config) -> None:
    async with BrowserEnv(browser, EnvConfig(har_path=har, **config)) as env:
        obs = await env.reset(url + "/")
        obs = (await env.step(Action(kind=ActionKind.CLICK,
                                     element_id=_button(obs.axtree, "Book")))).observation
        assert obs.title == "Booked", obs
        for name in ("Confirm", "Note"):
            await env.step(Action(kind=ActionKind.CLICK, element_id=_button(obs.axtree, name)))
        obs = await env.observe_settled()
        obs = (await env.step(Action(kind=ActionKind.CLICK,
                                     element_id=_button(obs.axtree, "Send review")))).observation
        assert obs.title == "Thanks", obs
    assert env.result is not None and env.result.error is None, env.result


@pytest.mark.asyncio(loop_scope="session")
async def test_stored_har_keeps_request_bodies_and_network_events_score_them(
        browser, hotel, tmp_path):
    har = tmp_path / "episode" / "network.har"
    await _episode(browser, hotel, har)

    task = Task(task_id="book-deluxe", intent="Book the deluxe room for 2", start_url=hotel,
                site="hotel", evaluators=CHECKS, metadata={"task_type": "MUTATE"})
    traj = Trajectory(trajectory_id="book-deluxe", task=task, agent="scripted",
                      network_trace="network.har")
    with RunStore.create(tmp_path / "run") as store:
        folder = store.add_trajectory(traj, {"network.har": har})
    stored = orjson.loads((folder / "network.har").read_bytes())["log"]["entries"]
    posts = {e["request"]["url"].removeprefix(hotel): e["request"].get("postData")
             for e in stored if e["request"]["method"] == "POST"}

    form = posts["/book"]
    assert form["mimeType"] == "application/x-www-form-urlencoded"
    assert form["text"].startswith("room=deluxe&guests=2&password=")
    assert {p["name"]: p["value"] for p in form["params"]}["guests"] == "2"
    assert orjson.loads(posts["/api/confirm"]["text"]) == {"booking": "deluxe", "nights": 3}
    note = posts["/api/note"]
    assert note["mimeType"].startswith("text/plain")
    assert orjson.loads(note["text"])["note"] == "late arrival"
    multi = posts["/review"]
    assert multi["mimeType"].startswith("multipart/form-data; boundary=")
    assert 'name="review"\r\n\r\nGreat stay\r\n' in multi["text"]
    assert {p["name"]: p["value"] for p in multi["params"]}["review"] == "Great stay"
    # Credentials in any of the bodies are redacted in the stored HAR.
    text = (folder / "network.har").read_text()
    for secret in (SECRET_FORM, SECRET_JSON, SECRET_MULTI):
        assert secret not in text
    assert text.count("[REDACTED]") >= 3

    env = EvalEnv(site_urls={"hotel": hotel})
    scores = []
    for config in CHECKS:
        scores += await create(config, env).evaluate(traj, folder)
    assert [(s.value, s.reason) for s in scores] == [(1.0, None)] * 3, scores

    # A wrong body is still told apart: the same episode against another expected room.
    wrong = _expected("__HOTEL__/book", {"room": "standard", "guests": "2"})
    [miss] = await create(wrong, env).evaluate(traj, folder)
    assert miss.value == 0.0


@pytest.mark.asyncio(loop_scope="session")
async def test_har_keeps_the_response_bodies_asked_for_up_to_the_bound(browser, hotel, tmp_path):
    """Response bodies are omitted except for the URLs an episode names (what its evaluators
    read), each up to `max_response_body_bytes`: "saved /api/note" (15 bytes) is kept,
    "saved /api/confirm" (18) is over the 16-byte bound and says so, the pages are not kept."""
    har = tmp_path / "network.har"
    await _episode(browser, hotel, har, response_body_urls=(re.escape(hotel) + "/api/.*",),
                   max_response_body_bytes=16)
    entries = orjson.loads(har.read_bytes())["log"]["entries"]
    content = {e["request"]["url"].removeprefix(hotel): e["response"]["content"]
               for e in entries if e["request"]["method"] == "POST"}
    assert content["/api/note"]["text"] == "saved /api/note"
    assert content["/api/note"]["size"] == 15
    assert content["/api/confirm"]["text"] == ""
    assert "over 16 bytes" in content["/api/confirm"]["comment"]
    assert not content["/book"].get("text") and not content["/review"].get("text")
