"""The leak corpus through a live run in real Chromium: a page on 127.0.0.1 fills a password
field, sends every corpus URL, header, cookie and body to its server, receives Set-Cookie,
and the agent visits the corpus's fragment URLs. No leak reaches any file of the run
(trajectory, HAR, index, report); look-alikes are stored as they were sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from redaction_corpus import leaks, lookalikes, original, scan
from webtraj.agents.protocol import AgentDecision
from webtraj.browser.passwords import MASK
from webtraj.model import Action, ActionKind, ElementTarget
from webtraj.model.task import Task

PASSWORD = "Pw-live-7d1e9c44"


def _login_page(port: int) -> bytes:
    sent = leaks(port) + lookalikes(port)
    plan = {
        "gets": [e["url"] for e in sent if e["where"] == "url" and "#" not in e["url"]
                 and "@" not in e["url"]],
        "headers": [[e["name"], e["value"]] for e in sent if e["where"] == "header"],
        "cookies": [[e["name"], e["value"]] for e in sent if e["where"] == "cookie"],
        "bodies": [[e["mime"], e["text"]] for e in sent if e["where"] == "body"],
    }
    return f"""<!doctype html><title>Sign in</title><h1>Sign in</h1>
<label>Username <input name=user value=ann></label>
<label>Password <input type=password id=pw name=pw></label>
<button id=go>Sign in</button><p id=status>idle</p>
<script>
const plan = {json.dumps(plan)};
document.getElementById('pw').value = {json.dumps(PASSWORD)};
document.getElementById('go').onclick = async () => {{
  for (const [n, v] of plan.cookies) document.cookie = n + '=' + v;
  const all = [
    ...plan.gets.map(u => fetch(u)),
    ...plan.headers.map(([n, v]) => fetch('/echo', {{headers: {{[n]: v}}}})),
    ...plan.bodies.map(([m, t]) => fetch('/echo', {{method: 'POST', body: t,
                                                   headers: m ? {{'Content-Type': m}} : {{}}}})),
  ];
  await Promise.allSettled(all);
  document.getElementById('status').textContent = 'all sent';
}};
</script>""".encode()


@pytest.fixture
def leaky_site():
    holder: dict[str, int] = {}

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, body: bytes, mime: str, extra: list[tuple[str, str]] = ()):
            self.send_response(200)
            self.send_header("Content-Type", mime)
            for k, v in extra:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802
            if self.path == "/login":
                cookies = [("Set-Cookie", e["value"]) for e in leaks()
                           if e["where"] == "set_cookie"]
                self._reply(_login_page(holder["port"]), "text/html", cookies)
            else:
                self._reply(b"<!doctype html><title>Page</title><h1>Page</h1>", "text/html")

        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._reply(body, self.headers.get("Content-Type") or "text/plain")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder["port"] = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


class CorpusAgent:
    """Clicks Sign in, waits (by scrolling) until the page says everything was sent, then
    visits each fragment URL and stops."""

    name = "corpus"

    def __init__(self, fragment_urls: list[str]) -> None:
        self.fragment_urls = fragment_urls

    async def act(self, task, observation, history):
        acted = [s.action for s in history if s.action is not None]
        if not acted:
            return AgentDecision(action=Action(
                kind=ActionKind.CLICK, target=ElementTarget(role="button", name="Sign in")))
        if not any("all sent" in s.observation.axtree for s in history[1:]) \
                and "all sent" not in observation.axtree:
            return AgentDecision(action=Action(kind=ActionKind.SCROLL, value="down"))
        visited = sum(1 for a in acted if a.kind is ActionKind.GOTO)
        if visited < len(self.fragment_urls):
            return AgentDecision(action=Action(kind=ActionKind.GOTO,
                                               value=self.fragment_urls[visited]))
        return AgentDecision(action=Action(kind=ActionKind.STOP, value="done"))


def test_no_corpus_leak_reaches_a_live_run(tmp_path, leaky_site):
    from webtraj import api

    port = leaky_site
    fragments = [e["url"] for e in leaks(port) + lookalikes(port)
                 if e["where"] == "url" and "#" in e["url"]]
    task = Task(task_id="leaky", intent="sign in", start_url=f"http://127.0.0.1:{port}/login")
    run = api.run([task], agent=CorpusAgent(fragments), out=tmp_path / "run", max_steps=60,
                  timeout_s=240, evaluate=False)
    folder = tmp_path / "run"
    [traj_file] = folder.rglob("trajectory.json")
    traj = json.loads(traj_file.read_text())
    assert traj.get("error") is None, traj.get("error")
    observed = [s["observation"] for s in traj["steps"]]
    assert any("all sent" in o["axtree"] for o in observed)
    # The password the page filled in: masked in the tree the moment it was captured.
    assert all(f"value={MASK}]" in o["axtree"] for o in observed if "Sign in" in o["title"])
    secrets = [PASSWORD, *(e["secret"] for e in leaks(port))]
    assert scan(folder, secrets) == {}
    assert run.report is not None and (folder / "index.sqlite").exists()
    # Look-alikes were written as they were sent (URLs, headers, bodies in the HAR); the
    # browser sets its own User-Agent whatever a page asks.
    stored = b"".join(p.read_bytes() for p in folder.rglob("*") if p.suffix in (".har", ".json"))
    missing = [e["id"] for e in lookalikes(port)
               if e["where"] in ("url", "header", "body") and e.get("name") != "User-Agent"
               and json.dumps(original(e))[1:-1].encode() not in stored]
    assert missing == []
