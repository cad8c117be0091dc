"""A suite from outside webtraj, the one docs/suites.md shows: one page served on loopback for
the life of a session, one task, scored by the suite's own evaluator.

A distribution registers it with an entry point of the group `webtraj.suites`:

    [project.entry-points."webtraj.suites"]
    hello = "example_suite:HelloSuite"

tests/suites/test_external_suite.py registers it so (a real .dist-info that importlib.metadata
reads) and runs it with `webtraj run --suite hello`."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

from webtraj.evaluate.protocol import SyncEvaluator
from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession, session_urls
from webtraj.model import Score, Task, Trajectory
from webtraj.model.action_text import parse_action
from webtraj.model.run import RunConfig
from webtraj.store import RunStore

SITE = "hello"
HEADING = "Hello, suite"
PAGE = f"<!doctype html><title>Hello</title><h1>{HEADING}</h1>".encode()


class HeadingAnswered(SyncEvaluator):
    """1 when the agent answered the page's heading, else 0."""

    name = "hello-heading"

    def score(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        return [Score(evaluator=self.name, value=float(trajectory.answer == HEADING))]


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


def _serve(stack: ExitStack, host: str) -> str:
    """Serve the page until `stack` closes; its base URL."""
    server = ThreadingHTTPServer((host, 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stack.callback(server.server_close)
    stack.callback(server.shutdown)  # callbacks run last first: shut down, then close
    return f"http://{host}:{server.server_address[1]}"


class HelloSuite(Suite):
    name = "hello"
    summary = "one page served on loopback; answer its heading"
    evaluators = ("example_suite:HeadingAnswered",)
    headline = ("hello-heading",)
    site_keys: ClassVar[frozenset[str]] = frozenset({SITE})

    def _tasks(self, base_url: str) -> list[Task]:
        return [Task(task_id="hello/heading", intent="Answer with the page's heading.",
                     site=SITE, start_url=base_url + "/",
                     reference_actions=(parse_action(f"stop [{HEADING}]"),),
                     evaluators=({"evaluator": "example_suite:HeadingAnswered"},),
                     metadata={"suite": self.name})]

    def list_tasks(self, options: ListOptions) -> list[Task]:
        with ExitStack() as stack:
            return self._tasks(_serve(stack, options.host))

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        base = _serve(stack, config.sandbox_host)
        return SuiteSession(tasks=self._tasks(base), served_urls={SITE: base},
                            session_urls=session_urls(store, {SITE: base}))
