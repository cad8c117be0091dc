"""The MiniWoB++ suite: the `miniwob` package's pages served for the life of a session,
task instances (task page x seed), scored by the page's own reward. `--task-ids` takes task
names (`click-button`) or instance ids (`miniwob/click-button/3`); `--seeds` the seeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from typing import Any, ClassVar

from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession, session_urls
from webtraj.model import InputError, RunInfo, Task
from webtraj.model.run import RunConfig
from webtraj.sites.sandbox import reachable_sandbox_host, rebase_task
from webtraj.store import RunStore

DEFAULT_SEEDS = (0,)
SITE = "miniwob"


def _server(host: str, *, wait: bool = True) -> Any:
    """The suite's server; a run does not wait for it to serve (`wait=False`: its port
    listens, and the episodes' first requests wait there while it starts)."""
    try:
        from webtraj.suites.miniwob.server import MiniWoBServer
    except ImportError as exc:
        raise InputError(f"the MiniWoB++ suite needs the 'miniwob' extra ({exc}): "
                         "pip install 'webtraj[miniwob]'", field="suite") from None
    return MiniWoBServer(host=reachable_sandbox_host(host), wait=wait)


def _page_tasks(tasks: Sequence[Task]) -> dict[str, Any]:
    """Every MiniWoB++ page states its task (instruction, time limit, end) to its episode."""
    from webtraj.suites.miniwob.tasks import PAGE_TASK

    return {t.task_id: PAGE_TASK for t in tasks}


def is_instance_id(task_id: str) -> bool:
    return task_id.startswith(f"{SITE}/") and task_id.count("/") == 2


def selection(task_ids: Sequence[str], seeds: Sequence[int]
              ) -> tuple[tuple[str, ...], tuple[int, ...], set[str]]:
    """Task names, seeds, and the instance ids asked for one by one. An instance id carries
    its seed: with `--seeds` too, which seeds were meant cannot be known (the id's alone, or
    the task's at each seed), so that is refused rather than one of them guessed."""
    carried = [tid for tid in task_ids if is_instance_id(tid)]
    if carried and seeds:
        name = carried[0].split("/")[1]
        raise InputError(
            f"--task-ids {carried[0]} names one instance, its seed included, so --seeds "
            f"cannot apply to it: give the task name with the seeds (--task-ids {name} "
            f"--seeds ...) or instance ids without --seeds", field="task_ids")
    names: list[str] = []
    instances: set[str] = set()
    chosen = list(seeds)
    for tid in task_ids:
        if is_instance_id(tid):
            _, name, seed = tid.split("/")
            names.append(name)
            instances.add(tid)
            if seed.isdigit() and int(seed) not in chosen:
                chosen.append(int(seed))
        else:
            names.append(tid)
    if not chosen or (len(instances) < len(task_ids) and not seeds):
        chosen = list(dict.fromkeys([*DEFAULT_SEEDS, *chosen]))
    return tuple(dict.fromkeys(names)), tuple(chosen), instances


def _parse_seeds(text: str) -> tuple[int, ...]:
    from webtraj.suites.miniwob.tasks import parse_seeds

    return parse_seeds(text)


class MiniWoBSuite(Suite):
    name = SITE
    summary = "MiniWoB++ task pages served on loopback, scored by the page's own reward"
    evaluators = ("miniwob",)
    headline = ("miniwob",)
    site_keys: ClassVar[frozenset[str]] = frozenset({SITE})
    setting_syntax: ClassVar[Mapping[str, Callable[[str], Any]]] = {"seeds": _parse_seeds}

    def _instances(self, base_url: str, task_ids: Sequence[str], seeds: Sequence[int], *,
                   read_pages: bool) -> tuple[list[Task], list[str], list[str]]:
        """Every selected instance, the ones whose page did not start as problems, and the ids
        that name no instance. With `read_pages`, each instance has the instruction its page
        shows (read now, or from the cache); without, its episode reads it (`PAGE_TASK`)."""
        from webtraj.suites.miniwob.tasks import build_tasks, page_stated_tasks, task_id

        names, chosen, instances = selection(task_ids, seeds)
        problems: list[str] = []
        started: set[str] = set()
        if read_pages:
            tasks, failed = build_tasks(base_url, names, chosen)
            problems = [f"task {task_id(p.name, p.seed)}: the page did not start: "
                        f"{'; '.join(p.errors)}" for p in failed]
            started = {task_id(p.name, p.seed) for p in failed}
        else:
            tasks = page_stated_tasks(base_url, names, chosen)
        unknown: list[str] = []
        if task_ids:
            tasks, unknown = self.select(tasks, task_ids)
            unknown = [i for i in unknown if i not in started]
        return tasks, problems, unknown

    def select(self, tasks: Sequence[Task], task_ids: Sequence[str]
               ) -> tuple[list[Task], list[str]]:
        """A task name selects each of its instances; an instance id, that one."""
        wanted = set(task_ids)
        chosen = [t for t in tasks
                  if t.task_id in wanted or t.metadata.get("miniwob_task") in wanted]
        known = {t.task_id for t in tasks} | {str(t.metadata.get("miniwob_task"))
                                              for t in tasks}
        return chosen, [i for i in dict.fromkeys(task_ids) if i not in known]

    def list_tasks(self, options: ListOptions) -> list[Task]:
        seeds = self.options(options).seeds
        selection(options.task_ids, seeds)  # a bad selection before any server
        with _server(options.host) as server:
            tasks, problems, _ = self._instances(server.base_url, options.task_ids,
                                                 seeds, read_pages=True)
        if problems and not tasks:
            raise InputError(f"no MiniWoB++ page started: {problems[0]}", field="suite")
        return tasks

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        seeds = self.options(config).seeds
        selection(config.task_ids, seeds)  # a bad selection before any server
        server = stack.enter_context(_server(config.sandbox_host, wait=False))
        tasks, problems, unknown = self._instances(server.base_url, config.task_ids,
                                                   seeds, read_pages=False)
        return SuiteSession(tasks=tasks, session_urls=session_urls(store, server.urls),
                            served_urls=dict(server.urls), problems=problems, selected=True,
                            unknown_ids=unknown, page_tasks=_page_tasks(tasks))

    def serve_tasks(self, stack: ExitStack, store: RunStore, config: RunConfig,
                    tasks: list[Task]) -> SuiteSession:
        server = stack.enter_context(_server(config.sandbox_host, wait=False))
        urls = session_urls(store, server.urls)
        served = urls or store.info.site_urls
        return SuiteSession(tasks=[rebase_task(t, served) for t in tasks], session_urls=urls,
                            served_urls=dict(server.urls), page_tasks=_page_tasks(tasks))

    def curation_judge(self, info: RunInfo) -> str:
        return "miniwob"

    def describe(self, options: ListOptions) -> list[str]:
        """The suite, with how many of its tasks run in Chromium (as last measured)."""
        from webtraj.suites.miniwob.check import load_check

        check = load_check()
        if check is None:
            return []
        starts = sum(t.starts for t in check.tasks)
        lines = [f"MiniWoB++ suite (--suite {SITE}; pip install 'webtraj[miniwob]'): "
                 f"{len(check.running)} of {len(check.tasks)} tasks run in Chromium "
                 f"{check.chromium_version} (miniwob {check.miniwob_version}, checked "
                 f"{check.checked_on}); {starts} pages start."]
        drag = [t.name for t in check.running if t.needs_drag]
        if drag:
            lines.append(f"  {len(drag)} of those ask for a drag (mouse_drag): "
                         f"{', '.join(drag)}")
        no_reward = [t.name for t in check.running if not t.reward_possible]
        if no_reward:
            lines.append(f"  {len(no_reward)} runnable; no reward possible in miniwob "
                         f"{check.miniwob_version} (the page never reports one, only its "
                         f"time-out's -1): {', '.join(no_reward)}")
        by_why: dict[str, list[str]] = {}
        for t in check.failing:
            by_why.setdefault(t.why or "unknown", []).append(t.name)
        lines += [f"  {len(names)} do not run ({why}): {', '.join(names)}"
                  for why, names in by_why.items()]
        return lines
