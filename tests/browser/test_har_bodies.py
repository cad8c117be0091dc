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
from webtraj.browser.har_recorder import har_from_journal, har_journal
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


SLOW_PAGE = """<!doctype html><title>Slow</title><p id=out>waiting</p>
<script>fetch('/api/fast').then(r => r.text()).then(() => fetch('/api/slow'))
  .then(r => { document.title = 'Headers'; return r.text(); })</script>"""
SLOW_SENT = threading.Event()  # /api/slow sent its headers and half its body
SLOW_RELEASE = threading.Event()  # the test is done with it: the server thread may end


class _Hotel(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _slow(self) -> None:
        """Headers and half a JSON body, then the rest only when the test releases it (the
        page has navigated away by then, so the browser never has the whole body)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "32")
        self.end_headers()
        self.wfile.write(b'{"status": "ok", ')
        self.wfile.flush()
        SLOW_SENT.set()
        SLOW_RELEASE.wait(120)

    def _send(self, html: str, ctype: str = "text/html") -> None:
        data = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/slow":
            self._send(SLOW_PAGE)
        elif self.path == "/api/slow":
            self._slow()
        elif self.path == "/api/fast":
            self._send('{"status": "ok"}', "application/json")
        else:
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
    SLOW_RELEASE.set()
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


@pytest.mark.asyncio(loop_scope="session")
async def test_a_wanted_body_the_browser_could_not_read_leaves_the_check_unscored(
        browser, hotel, tmp_path):
    """The page fetches /api/slow, whose body never completes, and navigates away once the
    headers are in: the HAR entry says its wanted body was not recorded and why, and the
    check on that body is unscored with the reason (never 0 from an empty body). The crash
    fallback HAR built from the episode's journal keeps the wanted bodies it could read."""
    har = tmp_path / "episode" / "network.har"
    har.parent.mkdir()
    wanted = (re.escape(hotel) + "/api/.*",)
    async with BrowserEnv(browser, EnvConfig(har_path=har, response_body_urls=wanted)) as env:
        obs = await env.reset(hotel + "/slow")
        while obs.title != "Headers":  # the fetch has its headers: the response event fired
            obs = await env.observe_settled()
        assert SLOW_SENT.is_set()
        obs = (await env.step(Action(kind=ActionKind.GOTO, value=hotel + "/"))).observation
        assert obs.title == "Book", obs
        obs = (await env.step(Action(kind=ActionKind.CLICK,
                                     element_id=_button(obs.axtree, "Book")))).observation
        await env.step(Action(kind=ActionKind.CLICK, element_id=_button(obs.axtree, "Note")))
        await env.observe_settled()
    assert env.result is not None and env.result.error is None, env.result
    SLOW_RELEASE.set()

    entries = orjson.loads(har.read_bytes())["log"]["entries"]
    [slow] = [e for e in entries if e["request"]["url"] == hotel + "/api/slow"]
    content = slow["response"]["content"]
    assert content["_bodyNotRecorded"].startswith("the browser could not read it"), content
    assert "not recorded" in content["comment"]
    [note] = [e for e in entries if e["request"]["url"] == hotel + "/api/note"]
    assert note["response"]["content"]["text"] == "saved /api/note"

    task = Task(task_id="slow", intent="Read the status", start_url=hotel, site="hotel",
                metadata={"task_type": "RETRIEVE"})
    traj = Trajectory(trajectory_id="slow", task=task, agent="scripted",
                      network_trace="network.har")
    env_ = EvalEnv(site_urls={"hotel": hotel})
    check = {"evaluator": "NetworkEventEvaluator",
             "expected": {"url": "__HOTEL__/api/slow", "http_method": "GET",
                          "response_content": {"status": "ok"}}}
    [score] = await create(check, env_).evaluate(traj, har.parent)
    assert score.value is None
    assert f"response body of {hotel}/api/slow was not recorded: the browser could not " \
        "read it" in (score.reason or ""), score
    # A body that was recorded is still scored as before.
    fast_check = {"evaluator": "NetworkEventEvaluator",
                  "expected": {"url": "__HOTEL__/api/fast", "http_method": "GET",
                               "response_content": {"status": "ok"}}}
    [ok] = await create(fast_check, env_).evaluate(traj, har.parent)
    assert (ok.value, ok.reason) == (1.0, None), ok

    # The crash fallback (the HAR rebuilt from the journal) keeps the wanted body it read.
    rebuilt = tmp_path / "rebuilt.har"
    assert har_from_journal(har_journal(har), rebuilt)
    kept = {e["request"]["url"].removeprefix(hotel): e["response"]["content"]
            for e in orjson.loads(rebuilt.read_bytes())["log"]["entries"]}
    assert kept["/api/note"]["text"] == "saved /api/note"
    assert kept["/api/fast"]["text"] == '{"status": "ok"}'
    assert kept["/api/slow"]["_bodyNotRecorded"].startswith("the request failed"), kept
    assert "text" not in kept["/book"]
