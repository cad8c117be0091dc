"""The MiniWoB++ suite for a run: the pages served for the life of the session and the task
instances (task page x seed) the run selects. `--task-ids` takes task names
(`click-button`) or instance ids (`miniwob/click-button/3`); `--seeds` the seeds."""

from __future__ import annotations

from webtraj.execute.sandbox import reachable_sandbox_host
from webtraj.model import InputError
from webtraj.model.run import RunConfig
from webtraj.model.task import Task

DEFAULT_SEEDS = (0,)


class MiniWoBSuite:
    def __init__(self, config: RunConfig) -> None:
        try:
            from webtraj.suites.miniwob.server import MiniWoBServer
        except ImportError as exc:
            raise InputError(f"the MiniWoB++ suite needs the 'miniwob' extra ({exc}): "
                             "pip install 'webtraj[miniwob]'", field="suite") from None

        self.config = config
        self.server = MiniWoBServer(host=reachable_sandbox_host(config.sandbox_host))
        self.problems: list[str] = []

    def __enter__(self) -> MiniWoBSuite:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def urls(self) -> dict[str, str]:
        return dict(self.server.urls)

    def selection(self) -> tuple[tuple[str, ...], tuple[int, ...], set[str]]:
        """Task names, seeds, and the instance ids asked for one by one."""
        names: list[str] = []
        instances: set[str] = set()
        seeds = list(self.config.seeds or ())
        for tid in self.config.task_ids:
            if tid.startswith("miniwob/") and tid.count("/") == 2:
                _, name, seed = tid.split("/")
                names.append(name)
                instances.add(tid)
                if seed.isdigit() and int(seed) not in seeds:
                    seeds.append(int(seed))
            else:
                names.append(tid)
        if not seeds or (len(instances) < len(self.config.task_ids) and not self.config.seeds):
            seeds = list(dict.fromkeys([*DEFAULT_SEEDS, *seeds]))
        return tuple(dict.fromkeys(names)), tuple(seeds), instances

    def tasks(self) -> list[Task]:
        """Every selected instance whose page starts; the others are reported as problems."""
        from webtraj.suites.miniwob.tasks import build_tasks, task_id

        names, seeds, instances = self.selection()
        tasks, failed = build_tasks(self.server.base_url, names, seeds)
        self.problems += [f"task {task_id(p.name, p.seed)}: the page did not start: "
                          f"{'; '.join(p.errors)}" for p in failed]
        if not self.config.task_ids:
            return tasks
        plain = set(self.config.task_ids) - instances
        return [t for t in tasks if t.metadata["miniwob_task"] in plain or t.task_id in instances]
