"""Hostile pages on an allowed origin, in real Chromium: WebRTC sends no UDP and is recorded,
dialogs (a loop of them included) never stop an episode, downloads stay in the episode's
scratch folder and are recorded."""
# ruff: noqa: E501  (inline HTML and scripts read better unwrapped)

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_observe import line_id

from webtraj.model import parse_action

pytestmark = pytest.mark.asyncio(loop_scope="session")

CSV = b"city,price\nParis,120\n"


def _pages(udp_port: int) -> dict[str, tuple[str, bytes, dict[str, str]]]:
    html = {"Content-Type": "text/html; charset=utf-8"}
    return {
        "/rtc": ("text/html", f"""<!doctype html><title>Call</title><h1>Call</h1><p id=s>start</p><script>
try {{
  const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:127.0.0.1:{udp_port}'}}, {{urls: ['turn:127.0.0.1:{udp_port}?transport=udp'], username: 'u', credential: 'c'}}]}});
  pc.createDataChannel('leak');
  pc.createOffer().then(o => pc.setLocalDescription(o));
  document.getElementById('s').textContent = 'peer connection made';
}} catch (e) {{ document.getElementById('s').textContent = 'refused: ' + e.name; }}
</script>""".encode(), html),
        "/alert-loop": ("text/html", b"""<!doctype html><title>Loop</title><h1>Loop</h1>
<button onclick="document.getElementById('r').textContent = 'clicked'">Go</button><p id=r>waiting</p>
<script>window.addEventListener('load', () => { while (true) alert('again'); });</script>""", html),
        "/leave": ("text/html", b"""<!doctype html><title>Stay</title><h1>Stay</h1>
<button onclick="window.armed = true; this.textContent = 'armed'">Arm</button>
<script>window.addEventListener('beforeunload', e => { if (window.armed) { e.preventDefault(); e.returnValue = 'stay'; } });</script>""", html),
        "/pw": ("text/html", b"""<!doctype html><title>Login</title><h1>Login</h1>
<label>Password <input type=password value="attr-secret-91"></label>
<label>PIN <input type=password id=pin></label>""", html),
        "/done": ("text/html", b"<!doctype html><title>Done</title><h1>Done</h1>", html),
        "/get": ("text/html", b"""<!doctype html><title>Get</title><h1>Get</h1>
<a href="/prices.csv" download="../../.ssh/prices list.csv">Prices</a>""", html),
        "/prices.csv": ("text/csv", CSV, {"Content-Type": "text/csv",
                                          "Content-Disposition": 'attachment; filename="../../.ssh/prices list.csv"'}),
    }


@pytest.fixture(scope="module")
def udp_trap():
    """A UDP socket on loopback that no page is allowed to reach."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    yield sock
    sock.close()


@pytest.fixture(scope="module")
def hostile(udp_trap):
    pages = _pages(udp_trap.getsockname()[1])

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            _, body, headers = pages.get(self.path, ("", b"not found", {}))
            self.send_response(200 if self.path in pages else 404)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


async def until(condition, bound_s: float = 60.0) -> None:
    """Wait for `condition()` to hold (the bound only stops a broken test from hanging)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound_s
    while not condition():
        assert loop.time() < deadline, "condition never held"
        await asyncio.sleep(0.02)


def udp_received(sock: socket.socket) -> list[bytes]:
    """Datagrams that reached the trap before a marker the test sends itself (a datagram on
    loopback is queued in order, so everything the browser sent earlier comes first)."""
    marker = b"webtraj-test-marker"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as out:
        out.sendto(marker, sock.getsockname())
    got = []
    sock.settimeout(30)
    while (data := sock.recvfrom(4096)[0]) != marker:
        got.append(data)
    return got


async def test_webrtc_is_refused_recorded_and_sends_no_udp(make_env, hostile, udp_trap):
    port = udp_trap.getsockname()[1]
    env = make_env()
    obs = await env.reset(f"{hostile}/rtc")
    assert "refused: NotSupportedError" in obs.axtree
    result = await env.close()
    webrtc = [b for b in result.blocked if b.reason == "webrtc"]
    assert [b.url for b in webrtc] == [f"stun:127.0.0.1:{port}",
                                       f"turn:127.0.0.1:{port}?transport=udp"]
    assert {b.resource_type for b in webrtc} == {"webrtc"}
    assert udp_received(udp_trap) == []


async def test_chromium_itself_sends_no_webrtc_udp(browser, hostile, udp_trap):
    """Without webtraj's page script, a peer connection gathers its ICE candidates to the end
    and still sends nothing: the launch flags allow WebRTC UDP only through a proxy."""
    port = udp_trap.getsockname()[1]
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(f"{hostile}/done")
        candidates = await page.evaluate("""async (port) => {
            const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:' + port}]});
            const found = [];
            pc.onicecandidate = e => { if (e.candidate) found.push(e.candidate.candidate); };
            pc.createDataChannel('leak');
            await pc.setLocalDescription(await pc.createOffer());
            await new Promise(done => {
              if (pc.iceGatheringState === 'complete') done();
              pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') done(); };
            });
            return found; }""", port)
    finally:
        await context.close()
    assert [c for c in candidates if " udp " in c] == []
    assert udp_received(udp_trap) == []


async def test_alert_loop_after_load_never_stops_the_episode(make_env, hostile):
    from webtraj.browser.shield import DIALOG_LIMIT

    env = make_env(dialog_policy="dismiss")
    obs = await env.reset(f"{hostile}/alert-loop")
    shown = [d for d in obs.dialogs if not d.refused]
    refused = [d for d in obs.dialogs if d.refused]
    assert len(shown) == DIALOG_LIMIT and all(d.kind == "alert" and d.accepted for d in shown)
    assert [(d.kind, d.accepted, d.message) for d in refused] == [("alert", False, "again")]
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Go')}]"))
    assert r.error is None and "[paragraph] [clicked]" in r.observation.axtree
    r = await env.step(parse_action("scroll [down]"))
    assert r.error is None
    result = await env.close()
    assert result.steps == 2 and len(result.dialogs) == DIALOG_LIMIT + 1


async def test_beforeunload_is_answered_so_the_agent_can_leave(make_env, hostile):
    env = make_env(dialog_policy="dismiss")
    obs = await env.reset(f"{hostile}/leave")
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Arm')}]"))
    assert "[button] [armed]" in r.observation.axtree
    r = await env.step(parse_action(f"goto [{hostile}/done]"))
    assert r.error is None and r.observation.url == f"{hostile}/done"
    assert [(d.kind, d.accepted) for d in r.observation.dialogs] == [("beforeunload", True)]


async def test_password_values_are_masked_in_tree_and_html(make_env, hostile):
    from webtraj.browser.passwords import MASK

    env = make_env(html=True)
    obs = await env.reset(f"{hostile}/pw")
    r = await env.step(parse_action(f"type [{line_id(obs.axtree, 'textbox', 'PIN')}] "
                                    "[typed-secret-55] [0]"))
    for o in (obs, r.observation):
        assert "attr-secret-91" not in o.axtree + o.html
        assert f'value="{MASK}"' in o.html
    assert "typed-secret-55" not in r.observation.axtree
    assert r.observation.axtree.count(f"value={MASK}]") == 2


async def test_download_lands_in_the_episode_folder_and_is_recorded(make_env, hostile, tmp_path):
    folder = tmp_path / "episode" / "downloads"
    env = make_env(downloads_dir=folder)
    obs = await env.reset(f"{hostile}/get")
    await env.step(parse_action(f"click [{line_id(obs.axtree, 'link', 'Prices')}]"))
    await until(lambda: env.downloads)  # a download may finish after the step settles
    result = await env.close()
    [rec] = result.downloads
    assert rec.url == f"{hostile}/prices.csv" and rec.error is None
    assert rec.suggested_filename.endswith("prices list.csv")
    assert rec.file == "001-ssh_prices_list.csv"  # no separators, no leading dot
    assert rec.bytes == len(CSV) and rec.sha256 == hashlib.sha256(CSV).hexdigest()
    # The file is in the episode's downloads folder and nowhere else under the test's folder.
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] == [
        f"episode/downloads/{rec.file}"]
    assert (folder / rec.file).read_bytes() == CSV


async def test_downloads_are_refused_without_a_folder(make_env, hostile):
    env = make_env()
    obs = await env.reset(f"{hostile}/get")
    await env.step(parse_action(f"click [{line_id(obs.axtree, 'link', 'Prices')}]"))
    assert (await env.close()).downloads == ()


async def test_episode_records_webrtc_dialogs_and_downloads_but_stores_no_download(
        browser, hostile, tmp_path):
    """Through run_episode: the trajectory's typed fields hold the records; the files an episode
    hands to the store are regular files of its folder (the downloads folder is not one)."""
    from webtraj.agents.replay import ReplayAgent
    from webtraj.execute.episode import EpisodeSpec, episode_artifacts, run_episode
    from webtraj.model import Action, ActionKind
    from webtraj.model.task import Task

    task = Task(task_id="hostile", intent="look", start_url=f"{hostile}/rtc",
                reference_actions=(Action(kind=ActionKind.GOTO, value=f"{hostile}/alert-loop"),
                                   Action(kind=ActionKind.GOTO, value=f"{hostile}/prices.csv"),
                                   Action(kind=ActionKind.SCROLL, value="down")))
    workdir = tmp_path / "work"

    class PatientReplay(ReplayAgent):
        """Stops only once the download is saved (it may finish after its step)."""

        async def act(self, task, observation, history):
            decision = await super().act(task, observation, history)
            if decision.action is not None and decision.action.kind is ActionKind.STOP:
                folder = workdir / "downloads"
                await until(lambda: folder.is_dir() and any(folder.iterdir()))
            return decision

    spec = EpisodeSpec(task=task, agent="replay", screenshots=False, timeout_s=120)
    traj = await run_episode(browser, PatientReplay(), spec, workdir)
    assert traj.error is None and len(traj.steps) == 4
    assert [b.reason for b in traj.blocked_requests].count("webrtc") == 2
    assert sum(1 for d in traj.dialogs if d.refused) == 1
    [download] = traj.downloads
    assert download.bytes == len(CSV)
    assert (workdir / "downloads" / download.file).read_bytes() == CSV
    assert "downloads" not in episode_artifacts(workdir)
    assert episode_artifacts(workdir) and all(
        p.is_file() for p in episode_artifacts(workdir).values())
