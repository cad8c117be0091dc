"""A suite from outside webtraj, the one docs/suites.md shows: one page served on loopback for
the life of a session, one task, scored by the suite's own evaluator.

A distribution registers it with an entry point of the group `webtraj.suites`, naming its
registry entry (which names the suite and its options model; a suite that takes no options may
be named directly, `example_suite:HelloSuite`):

    [project.entry-points."webtraj.suites"]
    hello = "example_suite:ENTRY"

tests/suites/test_external_suite.py registers it so (a real .dist-info that importlib.metadata
reads) and runs it with `webtraj run --suite hello`."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import typer
from pydantic import Field

from webtraj.evaluate.protocol import SyncEvaluator
from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession, session_urls
from webtraj.model import Score, Task, Trajectory
from webtraj.model.action_text import parse_action
from webtraj.model.base import FrozenModel
from webtraj.model.run import RunConfig
from webtraj.model.suite_registry import SuiteEntry
from webtraj.store import RunStore

SITE = "hello"
HEADING = "Hello, suite"
PAGE = f"<!doctype html><title>Hello</title><h1>{HEADING}</h1>".encode()


class HelloOptions(FrozenModel):
    """The suite's own options: `webtraj run --suite hello --greeting Hi` (a flag made from
    the field), recorded in the run's `suite_options`."""

    greeting: str | None = Field(default=None, description="Hello suite: words the task's "
                                 "intent starts with.")


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

    def _tasks(self, base_url: str, options: HelloOptions) -> list[Task]:
        intent = "Answer with the page's heading."
        return [Task(task_id="hello/heading",
                     intent=f"{options.greeting} {intent}" if options.greeting else intent,
                     site=SITE, start_url=base_url + "/",
                     reference_actions=(parse_action(f"stop [{HEADING}]"),),
                     evaluators=({"evaluator": "example_suite:HeadingAnswered"},),
                     metadata={"suite": self.name})]

    def list_tasks(self, options: ListOptions) -> list[Task]:
        with ExitStack() as stack:
            return self._tasks(_serve(stack, options.host), self.options(options))

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        base = _serve(stack, config.sandbox_host)
        return SuiteSession(tasks=self._tasks(base, self.options(config)),
                            served_urls={SITE: base},
                            session_urls=session_urls(store, {SITE: base}))


def add_commands(groups: dict[str, typer.Typer]) -> None:
    """The suite's own commands, added to the CLI's groups: `webtraj export hello`."""

    @groups["export"].command("hello")
    def export_hello() -> None:
        """Print the heading of the hello suite's page."""
        typer.echo(HEADING)


# Its registry entry, which the entry point names: the suite, its options model and the hook
# adding its commands, by module path (loaded when used).
ENTRY = SuiteEntry(name="hello", suite="example_suite:HelloSuite",
                   options="example_suite:HelloOptions", commands="example_suite:add_commands")
