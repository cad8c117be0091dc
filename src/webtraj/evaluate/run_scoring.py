"""Scoring a run: the one operation behind `webtraj run` (as trajectories arrive), `webtraj
eval --run`, `judges compare` and curation's missing curves.

Everything evaluators need comes from the run record, here and nowhere else: site URLs (the
run's, or a trajectory's own when it was made against a sandbox on other ports), the sandbox
oracle rebuilt from the run's date and seed, and one model client shared by every judge."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webtraj.evaluate.protocol import EvalEnv
from webtraj.evaluate.trajectory_scoring import score_trajectory
from webtraj.model import RunInfo, Score, Trajectory
from webtraj.model.redact import Redactor
from webtraj.store.index import RunIndex
from webtraj.store.run_store import INDEX_DB, CorruptTrajectory, RunStore

if TYPE_CHECKING:  # built on first use: a run that needs no model or sandbox imports neither
    from webtraj.llm import LLMClient
    from webtraj.sites.base import Site
    from webtraj.sites.oracle import Oracle

OnScored = Callable[[Trajectory, list[Score]], None]


class RunEnvironments:
    """The `EvalEnv` of each trajectory of a run, one per distinct set of site URLs."""

    def __init__(self, info: RunInfo, *, llm: str | None = None, no_cache: bool = False,
                 client: LLMClient | None = None) -> None:
        self.info = info
        if client is None and llm:
            from webtraj.llm import LLMClient

            client = LLMClient.from_cli(llm, no_cache=no_cache)
        self.llm = client
        self._sites: dict[str, Site] | None = None
        self._envs: dict[tuple[tuple[str, str], ...], EvalEnv] = {}

    def for_trajectory(self, trajectory: Trajectory | None = None) -> EvalEnv:
        urls = (trajectory.site_urls if trajectory is not None and trajectory.site_urls
                else self.info.site_urls)
        key = tuple(sorted(urls.items()))
        env = self._envs.get(key)
        if env is None:
            env = self._envs[key] = EvalEnv(site_urls=dict(urls) or None,
                                            served_sites=self.info.sandbox is not None,
                                            oracle=self._oracle(urls), llm=self.llm)
        return env

    def _oracle(self, urls: Mapping[str, str]) -> Oracle | None:
        sandbox = self.info.sandbox
        if sandbox is None or not urls:
            return None
        from webtraj.sites.oracle import Oracle

        if self._sites is None:
            from webtraj.sites.inventory import build_inventory
            from webtraj.sites.registry import make_sites

            self._sites = make_sites(build_inventory(sandbox.seed), sandbox.today)
        return Oracle(self._sites, dict(urls))


class ScoringResult:
    def __init__(self) -> None:
        self.trajectories = 0
        self.scores = 0
        self.unscored = 0
        self.errors = 0
        self.corrupt: list[CorruptTrajectory] = []

    def add(self, scores: Sequence[Score]) -> None:
        self.trajectories += 1
        self.scores += len(scores)
        self.unscored += sum(1 for s in scores if s.value is None and not s.error)
        self.errors += sum(1 for s in scores if s.error)


def score_run(store: RunStore, configs: Sequence[Mapping[str, Any]] | None,
              envs: RunEnvironments, *, concurrency: int = 8,
              on_done: Callable[[str, list[Score]], None] | None = None,
              **filters: Any) -> ScoringResult:
    """Score every (filtered) trajectory with `configs`, or its task's own evaluators; new
    scores are stored beside the old ones."""
    result = ScoringResult()

    async def main() -> None:
        limit = asyncio.Semaphore(concurrency)
        pending: set[asyncio.Task] = set()

        async def one(traj: Trajectory) -> None:
            async with limit:
                folder = store.trajectory_dir(traj.trajectory_id)
                scores = await score_trajectory(traj, folder, envs.for_trajectory(traj),
                                                configs)
            store.add_scores([(traj.trajectory_id, s) for s in changed(store, traj, scores)])
            result.add(scores)
            if on_done:
                on_done(traj.trajectory_id, scores)

        for traj in store.iter_trajectories(errors=result.corrupt, **filters):
            if len(pending) >= concurrency * 2:
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            pending.add(asyncio.create_task(one(traj)))
        if pending:
            await asyncio.gather(*pending)

    asyncio.run(main())
    return result


def changed(store: RunStore, trajectory: Trajectory, scores: Sequence[Score]) -> list[Score]:
    """The scores worth storing: all of them, except for an episode that ended in an error,
    whose error score is the same at every scoring (`trajectory_scoring.py`): one already
    stored as the newest of its evaluator is not added again (re-scoring or curating a run
    again must not grow its score sets with copies)."""
    if not trajectory.error:
        return list(scores)
    stored = {s.evaluator: s for s in store.scores(trajectory.trajectory_id)}
    redact = store.redactor.text
    return [s for s in scores if stored.get(s.evaluator) != s.model_copy(
        update={"reason": redact(s.reason) if s.reason else s.reason})]


def unscored_trajectories(store: RunStore) -> list[str]:
    """Trajectories stored without any score although their task declares evaluators: what a
    crash between storing a trajectory and storing its scores leaves behind."""
    ids = store.index.trajectories_without_scores()
    out = []
    for tid in ids:
        try:
            if store.load_trajectory(tid).task.evaluators:
                out.append(tid)
        except Exception:  # noqa: BLE001 - an unreadable one is reported by reconcile
            continue
    return out


class ScoringStage:
    """Scores trajectories as they arrive, on its own thread and event loop, so a slow judge
    never holds up the dispatch of episodes; scores go to the index through the stage's own
    connection (SQLite in WAL mode lets the run write trajectories meanwhile)."""

    def __init__(self, root: Path, envs: RunEnvironments,
                 configs: Sequence[Mapping[str, Any]] | None = None, *,
                 concurrency: int = 8, on_scored: OnScored | None = None,
                 redactor: Redactor | None = None) -> None:
        self.root = Path(root)
        self.envs = envs
        # The run's redactor (it knows the run's secrets, --accounts passwords included).
        self.redactor = redactor or Redactor()
        self.configs = list(configs) if configs else None
        self.on_scored = on_scored
        self.result = ScoringResult()
        self._loop = asyncio.new_event_loop()
        self._limit: asyncio.Semaphore | None = None
        self._concurrency = concurrency
        self._futures: list[Future] = []
        self._index: RunIndex | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="webtraj-scoring",
                                        daemon=True)
        self._thread.start()

    def submit(self, trajectory: Trajectory, folder: Path) -> None:
        self._futures.append(asyncio.run_coroutine_threadsafe(
            self._score(trajectory, folder), self._loop))

    async def _score(self, trajectory: Trajectory, folder: Path) -> None:
        if self._limit is None:
            self._limit = asyncio.Semaphore(self._concurrency)
            self._index = RunIndex(self.root / INDEX_DB, self.redactor)
        configs = self.configs
        if configs is not None:
            configs = [*trajectory.task.evaluators, *configs]
        async with self._limit:
            scores = await score_trajectory(trajectory, folder,
                                            self.envs.for_trajectory(trajectory), configs)
        rowid = self._index.rowid(trajectory.trajectory_id)
        if rowid is not None and scores:
            self._index.add_scores((rowid, s) for s in scores)
        self.result.add(scores)
        if self.on_scored:
            self.on_scored(trajectory, scores)

    def close(self) -> None:
        """Wait for every submitted trajectory to be scored, then stop the thread."""
        if self._loop.is_closed():
            return
        try:
            for f in self._futures:
                f.result()
        finally:
            async def shutdown() -> None:
                if self._index is not None:
                    self._index.close()

            asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> ScoringStage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
