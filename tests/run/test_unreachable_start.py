"""A start page that cannot be reached is an infrastructure error, never the agent's failure:
a closed port, a port Chromium refuses (ERR_UNSAFE_PORT), a name that does not resolve and a
site answering 503 (down or starting) each end their episode as an error with the reason (no
steps on `chrome-error://`, no score), `webtraj run` exits 3 with the count in its last line,
and running the same command again retries them (the ones whose site is back now pass). After
a site's reset command, the run waits (bounded, `--reset-wait`) for the site to answer."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from typer.testing import CliRunner

from webtraj.cli.app import app
from webtraj.execute.site_reset import reset_sites
from webtraj.model import Action, Constraint, Task
from webtraj.store import RunStore

PAGE = b"<!doctype html><title>Hotel Lumen</title><h1>Hotel Lumen in Paris</h1>"


class _Site(BaseHTTPRequestHandler):
    # Statuses to answer before the page, one per request (a site coming back).
    pending: list[int]
    seen: list[str]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append(self.path)
        status = self.pending.pop(0) if self.pending else 200
        body = PAGE if status == 200 else b"<h1>502-504: the site is starting</h1>"
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _serve(port: int = 0, pending: list[int] | None = None) -> ThreadingHTTPServer:
    handler = type("Site", (_Site,), {"pending": pending or [], "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _task(task_id: str, url: str) -> Task:
    return Task(task_id=task_id, intent="Find a hotel in Paris", start_url=url,
                constraints=(Constraint(name="city", value="Paris", type="location"),),
                reference_actions=(Action(kind="stop", value=""),))


def test_unreachable_start_pages_are_errors_retried_on_resume(tmp_path):
    closed = _closed_port()
    down = _serve(pending=[503] * 1000)  # down for the whole first run
    up = _serve()
    urls = {"refused": f"http://127.0.0.1:{closed}/", "unsafe": "http://127.0.0.1:6000/",
            "no-dns": "http://webtraj-no-such-host.invalid/",
            "down": f"http://127.0.0.1:{down.server_address[1]}/",
            "up": f"http://127.0.0.1:{up.server_address[1]}/"}
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(b"".join(_task(k, u).to_json_bytes(indent=False) + b"\n"
                               for k, u in urls.items()))
    out = tmp_path / "run"
    args = ["run", "--tasks", str(tasks), "--agent", "replay", "--timeout", "120",
            "--evaluator", "constraints:judge=rule", "--out", str(out)]
    try:
        res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        assert res.exit_code == 3, res.output
        assert res.stdout.strip().splitlines()[-1].startswith(
            "4 of 5 episodes ended in an error"), res.stdout
        why = {"refused": "ERR_CONNECTION_REFUSED", "unsafe": "ERR_UNSAFE_PORT",
               "no-dns": "", "down": "the site answered HTTP 503"}
        with RunStore.open(out) as store:
            trajs = {t.task.task_id: t for t in store.iter_trajectories()}
            for tid, reason in why.items():
                traj = trajs[tid]
                assert traj.termination == "error" and not traj.steps, (tid, traj.error)
                assert f"the start page {urls[tid]} could not be reached" in traj.error
                assert reason in traj.error, (tid, traj.error)
                # no 0 for the agent: each check is unscored, as an error
                scores = store.scores(traj.trajectory_id)
                assert scores and all(s.value is None and s.error for s in scores), scores
            assert trajs["up"].error is None and trajs["up"].termination == "stop"
            assert [s.value for s in store.scores(trajs["up"].trajectory_id)] == [1.0]
        # The sites come back: the same command runs the errors again, and only them.
        down.RequestHandlerClass.pending.clear()
        back = _serve(closed)
        try:
            res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        finally:
            back.shutdown()
            back.server_close()
        assert res.exit_code == 3, res.output
        assert res.stdout.strip().splitlines()[-1].startswith(
            "2 of 5 episodes ended in an error"), res.stdout
        with RunStore.open(out) as store:
            again = {t.task.task_id: t for t in store.iter_trajectories()}
            for tid in ("refused", "down"):
                assert again[tid].error is None and again[tid].termination == "stop", tid
                [score] = store.scores(again[tid].trajectory_id)
                assert score.value == 1.0, score
            assert again["up"].started_at == trajs["up"].started_at  # not run again
            assert {t for t, v in again.items() if v.error} == {"unsafe", "no-dns"}
        report = (out / "report.html").read_text()
        assert "2 ended in an error" in report
    finally:
        for server in (down, up):
            server.shutdown()
            server.server_close()


def test_reset_waits_for_the_site_to_come_back(tmp_path):
    site = _serve(pending=[503, 502])  # the reset is done; the site answers on its third look
    url = f"http://127.0.0.1:{site.server_address[1]}"
    marker = tmp_path / "reset.log"
    try:
        assert reset_sites({"reddit": f"echo done > '{marker}'"}, ["reddit"], {"reddit": url},
                           wait_s=120) is None
        assert marker.read_text() == "done\n"
        assert len(site.RequestHandlerClass.seen) == 3
    finally:
        site.shutdown()
        site.server_close()
    closed = f"http://127.0.0.1:{_closed_port()}"
    problem = reset_sites({"reddit": "true"}, ["reddit"], {"reddit": closed}, wait_s=0.5)
    assert problem is not None
    assert problem.startswith(f"site reddit ({closed}) was still down 0.5 s after its reset "
                              "command (") and "refused" in problem, problem


def test_reset_commands_are_recorded_redacted(tmp_path):
    """A password on a --reset-cmd never reaches run.json or the report."""
    from webtraj.model.run import RunConfig, RunInfo

    config = RunConfig(agent="replay", tasks_file="t.jsonl", reset_cmds={
        "reddit": "reset-site --password hunter2 && curl -u admin:s3cret-pw http://h/r"})
    info = RunInfo(settings=config, command="webtraj run --reset-cmd 'reddit=reset-site "
                   "--password hunter2' --out x")
    text = json.dumps(info.model_dump(mode="json"))
    assert "hunter2" not in text and "s3cret-pw" not in text
    assert info.settings is not None
    assert info.settings.reset_cmds["reddit"] == (
        "reset-site --password [REDACTED] && curl -u admin:[REDACTED] http://h/r")
    assert "--password [REDACTED]" in info.command


def test_a_site_still_down_after_its_reset_is_an_error_of_its_task(tmp_path):
    """WebArena-Verified task 527 changes gitlab: its reset command succeeds but the site
    never answers within --reset-wait, so the episode is an error naming the site (never
    run, never scored) and the run's other settings record the wait."""
    from webtraj.execute.run import RunConfig, execute_run

    gitlab = f"http://127.0.0.1:{_closed_port()}"
    urls = tmp_path / "urls.json"
    urls.write_text(json.dumps({"gitlab": gitlab}))
    config = RunConfig(suite="webarena-verified", agent="heuristic", task_ids=("527",),
                       site_urls_file=str(urls), reset_cmds={"gitlab": "true"},
                       reset_wait_s=0.5, screenshots=False)
    with execute_run(config, tmp_path / "run") as store:
        [traj] = store.iter_trajectories()
        scores = store.scores(traj.trajectory_id)
        assert store.info.settings is not None and store.info.settings.reset_wait_s == 0.5
    assert traj.termination == "error" and not traj.steps
    assert traj.error is not None and traj.error.startswith(
        f"site gitlab ({gitlab}) was still down 0.5 s after its reset command"), traj.error
    assert scores and all(s.value is None and s.error for s in scores), scores
