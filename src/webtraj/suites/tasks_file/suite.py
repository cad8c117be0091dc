"""A tasks file as a suite: its tasks as written; the sites a registered suite serves
(booking's sandbox, MiniWoB++) are served for the run as that suite serves them, at the date
and seed the tasks recorded, and the tasks move onto the served URLs; any other task's site
is where its start URL is, recorded as the run's URL for that site so that evaluators
(WebArena-Verified's network checks) can map requests to sites."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from urllib.parse import urlsplit

from webtraj.execute.suites.protocol import Suite, SuiteSession, session_urls
from webtraj.model import InputError, RunInfo, Score, Task
from webtraj.model.run import RunConfig
from webtraj.store import RunStore


def start_origins(tasks: Sequence[Task]) -> tuple[dict[str, str], list[str]]:
    """The origin of each site named by tasks (`site`) as their start URLs give it, and a
    warning for each site two tasks start on at different origins (the first one is kept)."""
    urls: dict[str, str] = {}
    clashes: dict[str, set[str]] = {}
    for t in tasks:
        parts = urlsplit(t.start_url or "")
        if not t.site or parts.scheme not in ("http", "https") or not parts.netloc:
            continue
        origin = f"{parts.scheme}://{parts.netloc}"
        if urls.setdefault(t.site, origin) != origin:
            clashes.setdefault(t.site, {urls[t.site]}).add(origin)
    warnings = [f"tasks start site {site!r} at {len(seen)} origins ({', '.join(sorted(seen))});"
                f" evaluators map its requests with {urls[site]}"
                for site, seen in clashes.items()]
    return urls, warnings


class TasksFileSuite(Suite):
    name = "tasks-file"
    summary = "the tasks of a JSONL or JSON file (webtraj run --tasks FILE)"
    named = False

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        from webtraj.evaluate.registry import check_task
        from webtraj.execute.suites import suite_serving
        from webtraj.formats.tasks import load_tasks, no_usable_task

        if not config.tasks_file:
            raise ValueError("a tasks-file run needs config.tasks_file")
        tasks, errors = load_tasks(config.tasks_file, need_start_url=True, check=check_task)
        if not tasks:
            raise no_usable_task(config.tasks_file, errors)
        session = SuiteSession(tasks=[], problems=[str(e) for e in errors], selected=True)
        if config.task_ids:  # before serving: only the sites of the chosen tasks are served
            chosen, session.unknown_ids = self.select(tasks, config.task_ids)
            if not chosen:
                raise InputError(f"--task-ids names no task of the file "
                                 f"({', '.join(session.unknown_ids[:10])}); it has "
                                 f"{len(tasks)} tasks", file=config.tasks_file,
                                 field="task_ids")
            tasks = chosen
        groups: dict[str, tuple[Suite, list[Task]]] = {}
        own: list[Task] = []
        for t in tasks:
            suite = suite_serving(t)
            if suite is None:
                own.append(t)
            else:
                groups.setdefault(suite.name, (suite, []))[1].append(t)
        moved: dict[int, Task] = {}
        live: dict[str, str] = {}
        for suite, members in groups.values():
            served = suite.serve_tasks(stack, store, config, members)
            moved.update(zip(map(id, members), served.tasks, strict=True))
            session.warnings += served.warnings
            session.page_tasks.update(served.page_tasks)
            live.update(served.served_urls)
        urls, warnings = start_origins([t for t in own if t.site not in live])
        session.warnings += warnings
        live.update(urls)
        session.tasks = [moved.get(id(t), t) for t in tasks]
        session.served_urls = live
        session.session_urls = session_urls(store, live)
        return session

    def select(self, tasks: Sequence[Task], task_ids: Sequence[str]
               ) -> tuple[list[Task], list[str]]:
        """Each task is selected as the suite serving it selects (MiniWoB++ task names
        select their instances); the file's own tasks by id."""
        from webtraj.execute.suites import suite_serving

        groups: dict[int, tuple[Suite, list[Task]]] = {}
        for t in tasks:
            suite = suite_serving(t) or Suite()
            groups.setdefault(id(type(suite)), (suite, []))[1].append(t)
        chosen: set[int] = set()
        unknown = set(task_ids)
        for suite, members in groups.values():
            picked, missing = suite.select(members, task_ids)
            chosen.update(map(id, picked))
            unknown &= set(missing)
        return ([t for t in tasks if id(t) in chosen],
                [i for i in dict.fromkeys(task_ids) if i in unknown])

    def headline_value(self, task: Task, scores: Sequence[Score]) -> float | None:
        from webtraj.execute.suites import suite_serving

        suite = suite_serving(task)
        if suite is not None:
            return suite.headline_value(task, scores)
        return super().headline_value(task, scores)

    def curation_judge(self, info: RunInfo) -> str:
        from webtraj.execute.suites import suite_of_sites

        suite = suite_of_sites(info)
        return suite.curation_judge(info) if suite is not None else super().curation_judge(info)

