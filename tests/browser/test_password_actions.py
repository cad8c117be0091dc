"""What an agent types into a password field is never kept, in real Chromium: the stored action
holds `••••`, or the secret's name when it is an account's password (and replaying the stored
action types the real password again); a field the page switches to `type=text` stays masked
in every later tree; the agent's reasoning loses the typed value too."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")

KNOWN = "Acct-pass-4471xq"  # the account's password (as --accounts gives it)
TYPED = "Typed-secret-5521"  # typed into a field that turns into a text field on input
PREFILLED = "Prefilled-secret-8830"  # set by the page, shown by a "Show" button
KEYED = "Keyed-secret-6612"  # typed by keyboard into the focused password field
APP = f"""<!doctype html><title>Account</title><h1>Account</h1>
<label>Saved <input type=password id=saved value="{PREFILLED}"></label>
<button onclick="document.getElementById('saved').type='text'">Show</button>
<label>Token <input type=password id=token></label>
<form method=post action=/confirm>
<label>New PIN <input type=password name=pin oninput="this.type='text'"></label>
<label>Confirm password <input type=password name=confirm></label>
<button>Save</button></form>""".encode()


@pytest.fixture
def account_site():
    received: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: bytes = b"", location: str | None = None):
            self.send_response(302 if location else 200)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802
            if self.path.startswith("/login"):
                self._send(b"<!doctype html><title>Log in</title><form method=post action=/login>"
                           b"<input name=user><input type=password name=pw>"
                           b"<button>Log in</button></form>")
            elif self.path.startswith("/app"):
                self._send(APP)
            else:
                self._send(b"<!doctype html><title>Welcome</title><h1>Welcome</h1>")

        def do_POST(self):  # noqa: N802
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            field = "pw" if self.path == "/login" else "confirm"
            received.append((self.path, form.get(field, [""])[0]))
            self._send(location="/welcome" if self.path == "/login" else "/app?confirmed")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", received
    server.shutdown()
    server.server_close()


async def test_typed_passwords_are_masked_or_named_and_replay_types_the_secret(
        browser, account_site, tmp_path):
    from webtraj.agents.protocol import AgentDecision
    from webtraj.agents.replay import ReplayAgent
    from webtraj.browser.config import EnvConfig, FormLogin
    from webtraj.browser.passwords import MASK
    from webtraj.execute.episode import EpisodeSpec, episode_artifacts, run_episode
    from webtraj.model import Action, ActionKind, ElementTarget, RunInfo
    from webtraj.model.task import Task
    from webtraj.report.html import write_report
    from webtraj.store import RunStore

    base, received = account_site

    class Chatty(ReplayAgent):
        """Replays, saying what it types (as a model's reasoning and reply would)."""

        async def act(self, task, observation, history):
            d = await super().act(task, observation, history)
            said = f"I will type {d.action.value} now" if d.action else ""
            return AgentDecision(action=d.action, reasoning=said, raw_output=said)

    def typing(name: str, value: str, enter: bool = False) -> Action:
        return Action(kind=ActionKind.TYPE, target=ElementTarget(role="textbox", name=name),
                      value=value, press_enter=enter)

    actions = (typing("New PIN", TYPED),
               Action(kind=ActionKind.CLICK, target=ElementTarget(role="button", name="Show")),
               Action(kind=ActionKind.CLICK, target=ElementTarget(role="textbox", name="Token")),
               Action(kind=ActionKind.KEYBOARD_TYPE, value=KEYED),
               typing("Confirm password", KNOWN, enter=True),
               Action(kind=ActionKind.STOP, value=f"done; the PIN is {TYPED}"))
    task = Task(task_id="account", intent="set a PIN", site="app", start_url=f"{base}/app",
                reference_actions=actions)
    config = EnvConfig(logins=(FormLogin(site="app", login_url=f"{base}/login",
                                         username="ann", password=KNOWN),))
    spec = EpisodeSpec(task=task, agent="replay", screenshots=False, timeout_s=120)
    traj = await run_episode(browser, Chatty(), spec, tmp_path / "one", env_config=config)
    assert traj.error is None, traj.error
    assert [s.action.value for s in traj.steps[:5]] == [MASK, None, None, MASK, "{secret:app}"]
    assert received == [("/login", KNOWN), ("/confirm", KNOWN)]  # the page got the real ones
    # The PIN field turned into a text field and "Show" revealed the saved one: both masked
    # by their history in every later tree.
    for step in traj.steps[1:5]:
        lines = [ln for ln in step.observation.axtree.splitlines()
                 if "New PIN" in ln or "Saved" in ln]
        assert lines and all(f"value={MASK}]" in ln for ln in lines), lines
    stored = traj.model_dump_json(exclude={"task"})  # the task is the test's own input
    assert [s for s in (KNOWN, TYPED, PREFILLED, KEYED) if s in stored] == []
    assert "I will type [REDACTED] now" in stored and traj.answer == "done; the PIN is [REDACTED]"
    # Stored as a run would store it: the HAR (the form posted the PIN under a plain name)
    # and the report hold neither value; the report shows the masked and named actions.
    folder = tmp_path / "one"
    with RunStore.create(tmp_path / "run", RunInfo(name="pw")) as store:
        store.add_trajectory(traj.model_copy(update={"task": task.model_copy(
            update={"reference_actions": None})}), episode_artifacts(folder))
        report = write_report(store).read_text()
    kept = b"".join(p.read_bytes() for p in (tmp_path / "run").rglob("*") if p.is_file())
    assert [s for s in (KNOWN, TYPED, PREFILLED, KEYED) if s.encode() in kept] == []
    assert "network.har" in episode_artifacts(folder) and "{secret:app}" in report

    # Replaying the stored actions types the account's password by its name.
    replayed = task.model_copy(update={"reference_actions": tuple(s.action for s in traj.steps)})
    again = await run_episode(browser, ReplayAgent(), spec.model_copy(update={"task": replayed}),
                              tmp_path / "two", env_config=config)
    assert again.error is None, again.error
    assert received[2:] == [("/login", KNOWN), ("/confirm", KNOWN)]
