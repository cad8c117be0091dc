"""Downloads are capped in real Chromium: a page on 127.0.0.1 streams files without end; each
kept file stops at the per-file cap, the episode's files together at the episode's cap, and
the trajectory records each cut."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.asyncio(loop_scope="session")

CHUNK = bytes(range(256)) * 256  # 64 KiB, so the kept head's bytes can be checked
PAGE = b"""<!doctype html><title>Files</title><h1>Files</h1>
<a href="/stream/one.bin">One</a> <a href="/stream/two.bin">Two</a>"""


@pytest.fixture(scope="module")
def streaming():
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            if not self.path.startswith("/stream/"):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Disposition", "attachment")
            self.end_headers()
            try:  # until the browser hangs up (bounded: 1 GiB)
                for _ in range(16_384):
                    self.wfile.write(CHUNK)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _head(n: int) -> bytes:
    return (CHUNK * (n // len(CHUNK) + 1))[:n]


async def test_endless_downloads_stop_at_the_caps_and_the_cuts_are_recorded(
        browser, streaming, tmp_path):
    from webtraj.agents.replay import ReplayAgent
    from webtraj.browser.config import EnvConfig
    from webtraj.execute.episode import EpisodeSpec, run_episode
    from webtraj.model import Action, ActionKind, ElementTarget
    from webtraj.model.task import Task

    workdir = tmp_path / "work"
    folder = workdir / "downloads"

    def kept() -> list:
        return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) \
            if folder.is_dir() else []

    class PatientReplay(ReplayAgent):
        """Clicks each link once the file before it is kept, then stops."""

        async def act(self, task, observation, history):
            done = sum(1 for s in history if s.action is not None)
            while len(kept()) < done:  # bounded by the episode's timeout
                await asyncio.sleep(0.05)
            return await super().act(task, observation, history)

    click = [Action(kind=ActionKind.CLICK, target=ElementTarget(role="link", name=name))
             for name in ("One", "Two")]
    task = Task(task_id="files", intent="download", start_url=f"{streaming}/",
                reference_actions=tuple(click))
    config = EnvConfig(max_download_bytes=300_000, max_episode_download_bytes=450_000)
    spec = EpisodeSpec(task=task, agent="replay", screenshots=False, timeout_s=120)
    traj = await run_episode(browser, PatientReplay(), spec, workdir, env_config=config)
    assert traj.error is None, traj.error
    one, two = traj.downloads
    assert (one.cut_by, one.cut_at, one.bytes) == ("file", 300_000, 300_000)
    assert (two.cut_by, two.cut_at, two.bytes) == ("episode", 150_000, 150_000)
    for record in (one, two):
        data = (folder / record.file).read_bytes()
        assert data == _head(record.bytes)
        assert record.sha256 == hashlib.sha256(data).hexdigest() and record.error is None
    assert [p.name for p in folder.iterdir()] and len(kept()) == 2 == len(list(folder.iterdir()))
    stored = traj.model_dump(mode="json")["downloads"]
    assert [(d["cut_by"], d["cut_at"]) for d in stored] == [("file", 300_000), ("episode", 150_000)]
