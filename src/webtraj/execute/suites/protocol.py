"""The suite protocol: what a run needs from a source of tasks, whatever it is.

A suite lists its tasks, serves the sites they run on for the life of a session (recording
the site URLs, and a sandbox's date and seed, in the run), names the evaluators its tasks are
scored by and the one whose success is the run's headline, and the judge curation reads.
Booking, MiniWoB++, WebArena-Verified, a tasks file and an imported run are suites, each one
package under `webtraj.suites`; code outside them asks the registry (`webtraj.execute.suites`)
for a run's suite and never tests a suite's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, ClassVar

from webtraj.browser.config import FormLogin
from webtraj.browser.page_task import PageTask
from webtraj.evaluate.registry import headline_evaluator
from webtraj.model import InputError, RunInfo, Score, Task, Trajectory
from webtraj.model.run import RunConfig
from webtraj.model.suite_registry import suite_options
from webtraj.model.task_listing import ListOptions
from webtraj.store import RunStore


@dataclass
class SuiteSession:
    """A suite's tasks for one session of a run, with the sites serving them.

    `session_urls` are the site URLs of this session when they differ from the ones the run
    recorded (a resumed run whose ports were taken): trajectories made now record their own.
    `problems` are tasks left out (with why); `warnings` are facts the user must see (a task
    served at a date it did not record)."""

    tasks: list[Task]
    session_urls: dict[str, str] | None = None
    # The sites this session serves, at the URLs it serves them on.
    served_urls: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Whether `tasks` are already the selection of `config.task_ids` (a suite whose ids
    # name groups of tasks selects them itself).
    selected: bool = False
    # --task-ids that named no task of the suite.
    unknown_ids: list[str] = field(default_factory=list)
    # Origins the browser may reach besides each task's start origin (a deployment's sites).
    allow_origins: tuple[str, ...] = ()
    # Accounts episodes log in with before their start URL (each on the sites of its task).
    logins: tuple[FormLogin, ...] = ()
    # Tasks that change their sites (id -> those sites): run one at a time, after the
    # others, each after its sites' reset commands.
    exclusive: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Tasks whose evaluators read response bodies (id -> URL regexes, full match): the HAR
    # keeps those responses' bodies (bounded), and only those.
    response_bodies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Tasks whose page states them (id -> how): the episode reads the instruction in its own
    # page load and ends when the page says the task is over.
    page_tasks: dict[str, PageTask] = field(default_factory=dict)


class Suite:
    """A kind of task source. Subclasses set the class attributes and override what applies;
    one instance serves any number of runs (it keeps no state)."""

    name: ClassVar[str]
    # One line for `webtraj sites list` and `--suite` help.
    summary: ClassVar[str] = ""
    # Names of the evaluators the suite's tasks declare (the metrics helper groups their
    # scores into families); empty when they depend on the tasks (a file, an import).
    evaluators: ClassVar[tuple[str, ...]] = ()
    # Name prefixes of the evaluators whose value is an episode's success in progress
    # displays (the first one scored counts).
    headline: ClassVar[tuple[str, ...]] = ()
    # True when `webtraj run --suite NAME` and `webtraj sites tasks --suite NAME` take it.
    named: ClassVar[bool] = True
    # True when its sites have an oracle that reads the state an episode reached, so
    # `webtraj explore` can label explored prefixes with constraints it verifies.
    explorable: ClassVar[bool] = False
    # The syntax of the run settings this suite reads, as a command line writes them: setting
    # name -> parser of the option's text (MiniWoB++'s `--seeds 0-9`).
    setting_syntax: ClassVar[Mapping[str, Callable[[str], Any]]] = {}

    # -- options -----------------------------------------------------------------------------

    def options(self, settings: RunConfig | ListOptions) -> Any:
        """A run's or a listing's `suite_options` read into this suite's options model (named
        in its registry entry): the one way a suite reads its options. An option it does not
        take is an `InputError` naming the option and the suite."""
        return suite_options(self.name, settings.suite_options)

    # -- tasks -------------------------------------------------------------------------------

    def list_tasks(self, options: ListOptions) -> list[Task]:
        """The suite's tasks as a file would carry them, with what reproduces them."""
        raise InputError(f"the {self.name} suite has no task list of its own", field="suite")

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        """Serve the sites for a run's session (closed by `stack`), recording in `store` the
        site URLs (and sandbox) the run keeps for its life; the tasks to run."""
        raise InputError(f"the {self.name} suite cannot be run", field="suite")

    def select(self, tasks: Sequence[Task], task_ids: Sequence[str]
               ) -> tuple[list[Task], list[str]]:
        """The tasks `task_ids` name, and the ids that name none."""
        wanted = set(task_ids)
        known = {t.task_id for t in tasks}
        return ([t for t in tasks if t.task_id in wanted],
                [i for i in dict.fromkeys(task_ids) if i not in known])

    # -- tasks of a file that this suite serves ------------------------------------------------

    # Site keys (as in `RunInfo.site_urls`) this suite serves.
    site_keys: ClassVar[frozenset[str]] = frozenset()

    def serves(self, task: Task) -> bool:
        """Whether `task` (read from a file) runs on sites this suite serves."""
        return task.metadata.get("suite") == self.name and (task.site or "") in self.site_keys

    def serve_tasks(self, stack: ExitStack, store: RunStore, config: RunConfig,
                    tasks: list[Task]) -> SuiteSession:
        """Serve the sites `tasks` (all `serves`d) name and move them onto the served URLs."""
        raise InputError(f"the {self.name} suite cannot serve a file's tasks", field="suite")

    def finish(self, trajectory: Trajectory) -> Trajectory:
        """The trajectory as the run stores it (a suite may put the agent's answer in the form
        its evaluators read)."""
        return trajectory

    # -- after the run -----------------------------------------------------------------------

    def curation_judge(self, info: RunInfo) -> str:
        """The judge whose per-step curve curation reads by default."""
        return "oracle" if info.sandbox is not None and info.site_urls else "rule"

    def headline_value(self, task: Task, scores: Sequence[Score]) -> float | None:
        """An episode's success for progress displays: the value of the scored evaluator
        that `evaluate.registry.headline_evaluator` picks (the one the run's tables show)
        among those the suite names as its headline, else (a suite without one) among those
        the task declares, the first declared first."""
        groups = ((self.headline,) if self.headline else
                  tuple((str(e.get("evaluator", "")),) for e in task.evaluators))
        for prefixes in groups:
            named = {s.evaluator: s.value for s in scores if s.value is not None
                     and any(p and s.evaluator.startswith(p) for p in prefixes)}
            pick = headline_evaluator(list(named))
            if pick is not None:
                return named[pick]
        return None

    def describe(self, options: ListOptions) -> list[str]:
        """Plain lines for `webtraj sites list`."""
        return [f"{self.name}: {self.summary}"] if self.summary else []


def record_site_urls(store: RunStore, urls: Mapping[str, str]) -> bool:
    """Record the sites of `urls` the run has no URL for yet (it keeps the others for its
    life); True when this session serves some of them at other URLs than the recorded ones
    (trajectories made in it then record their own)."""
    recorded = store.info.site_urls
    new = {k: v for k, v in urls.items() if k not in recorded}
    if new:
        store.update_info(site_urls={**recorded, **new})
    return any(store.info.site_urls.get(k) != v for k, v in urls.items())


def session_urls(store: RunStore, urls: Mapping[str, str]) -> dict[str, str] | None:
    """`record_site_urls`, then the whole map a trajectory of this session records when its
    URLs differ from the run's (None when they do not)."""
    if not record_site_urls(store, urls):
        return None
    return {**store.info.site_urls, **urls}
