"""`webtraj explore`: trajectories without tasks, then tasks in hindsight (NNetNav's recipe,
with labels the sandbox checks).

1. Exploration tasks (a persona and a seed per episode, on the suite's sites) are written to
   `OUT/explore_tasks.jsonl` and run like any tasks file, by an explorer agent, into the run
   `OUT/episodes` (steps, HAR, screenshots as any run's).
2. Each episode is labeled every `interval` actions by the oracle (`generate.hindsight`);
   a label is kept when the oracle and the rule judge find it met (CSR 1), its wording
   (`curate.relabel`'s rule wording, or a model's checked rewrite) repeats no earlier task
   (`generate.similarity`), and the rest are counted by reason. With `--labeler llm` the
   wording is a model's (checked to state every constraint) and, as NNetNav's outcome reward
   model, an outcome judge (WebVoyager's) must find the prefix accomplishes it.
3. The kept tasks are written to `OUT/tasks.jsonl` (reference actions: the prefix's); the
   pairs become the run `OUT/labeled` (each prefix under its task, then a stop whose
   reasoning states the task; scored by the oracle, curated like any run); the tasks are
   replayed into `OUT/replay` (`--agent replay`), the check that they reproduce (SR 1)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from webtraj.agents.explore.personas import draw_persona
from webtraj.curate.relabel import rule_relabel
from webtraj.execute.explore_options import ExploreOptions
from webtraj.execute.hindsight_run import LabeledPair, prefix_trajectory, write_labeled_run
from webtraj.execute.run import execute_run
from webtraj.execute.suites import get_suite, named_suites
from webtraj.generate.hindsight import PrefixLabel, distinct, label_trajectory, labeled_task
from webtraj.generate.similarity import DEFAULT_THRESHOLDS, DuplicateIndex, make_embedder
from webtraj.model import InputError, Score, Task, Trajectory
from webtraj.model.base import FrozenModel
from webtraj.model.exploration import Exploration
from webtraj.model.run import RunConfig
from webtraj.store import RunStore

EPISODES_RUN = "episodes"
LABELED_RUN = "labeled"
REPLAY_RUN = "replay"
EXPLORE_TASKS = "explore_tasks.jsonl"
TASKS_FILE = "tasks.jsonl"
REPORT_FILE = "explore_report.json"
AGENTS = {"persona": "explore-persona", "llm": "explore-llm"}


class ExploreReport(FrozenModel):
    episodes: int
    episode_errors: int = 0
    pruned: int = 0
    steps: int = 0
    prefixes: int = 0
    labeled: int = 0
    kept: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    by_site_difficulty: dict[str, int] = Field(default_factory=dict)
    distinct_intents: int = 0
    distinct_combinations: int = 0
    labeled_csr1: int = 0
    replayed: int = 0
    replay_csr1: int = 0
    replay_errors: int = 0
    explore_s: float = 0.0
    label_s: float = 0.0
    replay_s: float = 0.0
    embedder: str = ""

    @property
    def replay_share(self) -> float | None:
        return self.replay_csr1 / self.replayed if self.replayed else None


def exploration_tasks(opts: ExploreOptions, today: dt.date) -> list[Task]:
    """One task per episode: a site (in turn), a persona and a seed drawn from `opts.seed`."""
    from webtraj.sites.registry import DEFAULT_PORT_BASE, SITE_CLASSES, site_urls

    by_key = {c.key: c for c in SITE_CLASSES}
    keys = opts.sites or tuple(by_key)
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise InputError(f"unknown site(s) {', '.join(unknown)}; the sandbox has "
                         f"{', '.join(by_key)}", field="--sites")
    urls = site_urls("127.0.0.1", DEFAULT_PORT_BASE)
    rng = random.Random(f"explore:{opts.seed}")
    stamp = {"suite": opts.suite, "today": today.isoformat(), "seed": 0}
    tasks = []
    for i in range(opts.episodes):
        key = keys[i % len(keys)]
        ex = Exploration(persona=draw_persona(rng), seed=rng.randrange(2**31),
                         policy=opts.policy, today=today.isoformat())
        tasks.append(Task(
            task_id=f"explore.{key}.{opts.seed}-{i:04d}",
            intent=f"Explore {by_key[key].brand} as a {ex.persona.name}.", site=key,
            start_url=urls[key] + "/",
            metadata={"suite": opts.suite, "sandbox": stamp, **ex.stamp()}))
    return tasks


def _write_tasks(path: Path, tasks: list[Task]) -> None:
    from webtraj.store.atomic import write_bytes_atomic

    write_bytes_atomic(path, b"".join(t.to_json_bytes(indent=False) + b"\n" for t in tasks))


def explore(opts: ExploreOptions, out: str | Path, *, command: str = "",
            on_stage: Callable[[str], None] | None = None) -> ExploreReport:
    """Explore, label, write the tasks, replay them; the report is also written to
    `OUT/explore_report.json`."""
    if not get_suite(opts.suite).explorable:
        able = ", ".join(s.name for s in named_suites() if s.explorable)
        raise InputError(f"explore labels with a sandbox oracle: it runs on {able}, not "
                         f"{opts.suite!r}", field="--suite")
    if (opts.policy == "llm" or opts.labeler == "llm") and not opts.llm:
        raise InputError("the llm explorer and labeler need --llm", field="--llm")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    today = dt.date.fromisoformat(opts.today) if opts.today else dt.date.today()
    say = on_stage or (lambda _m: None)
    tasks_path = out / EXPLORE_TASKS
    _write_tasks(tasks_path, exploration_tasks(opts, today))
    t0 = time.monotonic()
    say(f"exploring: {opts.episodes} episode(s) with the {opts.policy} explorer")
    config = RunConfig(tasks_file=str(tasks_path), agent=AGENTS[opts.policy], llm=opts.llm,
                       no_cache=opts.no_cache, max_steps=opts.max_steps, workers=opts.workers,
                       evaluate=False, screenshots=opts.screenshots,
                       agent_options={"interval": opts.interval, "patience": opts.patience})
    with execute_run(config, out / EPISODES_RUN, command=command) as store:
        explore_s = time.monotonic() - t0
        t1 = time.monotonic()
        say("labeling in hindsight")
        pairs, counts = _label(store, opts)
        episodes_info = store.info
    tasks = [p.task for p in pairs]
    _write_tasks(out / TASKS_FILE, tasks)
    scored = write_labeled_run(out / LABELED_RUN, pairs, config=RunConfig(
        tasks_file=str(out / TASKS_FILE), agent=AGENTS[opts.policy], llm=opts.llm,
        max_steps=opts.max_steps, screenshots=opts.screenshots), episodes=episodes_info,
        command=command)
    label_s = time.monotonic() - t1
    n, combos = distinct(tasks)
    by = Counter(f"{t.site}/{t.difficulty.value if t.difficulty else '-'}" for t in tasks)
    report = ExploreReport(episodes=opts.episodes, kept=len(tasks), distinct_intents=n,
                           distinct_combinations=combos, by_site_difficulty=dict(sorted(
                               by.items())), explore_s=round(explore_s, 3),
                           label_s=round(label_s, 3), labeled_csr1=sum(
                               _csr1(s) for s in scored.values()), **counts)
    if opts.replay and tasks:
        say(f"replaying {len(tasks)} labeled task(s)")
        t2 = time.monotonic()
        report = report.model_copy(update={**_replay(out, opts, today),
                                           "replay_s": round(time.monotonic() - t2, 3)})
    from webtraj.store.atomic import write_bytes_atomic

    write_bytes_atomic(out / REPORT_FILE, report.model_dump_json(indent=2).encode())
    return report


def _csr1(scores: list[Score]) -> bool:
    csr = [s.value for s in scores if s.evaluator.startswith("constraints")
           and s.value is not None]
    return bool(csr) and all(v >= 1.0 for v in csr)


def _label(store: RunStore, opts: ExploreOptions) -> tuple[list[LabeledPair], dict]:
    from webtraj.evaluate.run_scoring import RunEnvironments

    envs = RunEnvironments(store.info)
    embedder, _note = make_embedder(opts.embedder)
    index = DuplicateIndex(embedder, opts.threshold if opts.threshold is not None
                           else DEFAULT_THRESHOLDS[embedder.name])
    rejected: Counter[str] = Counter()
    counts = Counter()
    kept: list[LabeledPair] = []
    labels: list[tuple[PrefixLabel, Trajectory]] = []
    for row in sorted(store.rows(), key=lambda r: r.trajectory_id):
        traj = store.load_trajectory(row.trajectory_id)
        counts["steps"] += len(traj.steps)
        if traj.error:
            counts["episode_errors"] += 1
            continue
        if traj.steps and "pruned" in traj.steps[-1].reasoning:
            counts["pruned"] += 1
        oracle = envs.for_trajectory(traj).oracle
        assert oracle is not None, "a booking run has an oracle"
        for label in label_trajectory(traj, oracle, opts.interval):
            counts["prefixes"] += 1
            if label.rejected:
                rejected["unverified"] += 1
                continue
            labels.append((label, traj))
    counts["labeled"] = len(labels)
    worded = _word(labels, opts)
    for (label, traj), words in zip(labels, worded, strict=True):
        if words is None:
            rejected["wording_failed"] += 1
            continue
        intent, stop_reasoning = words
        vec = embedder.encode([intent])[0]
        hit = index.match(intent, vec)
        if hit is not None:
            rejected[f"duplicate_{hit[0]}"] += 1
            continue
        index.add([intent], [vec])
        kept.append(LabeledPair(task=labeled_task(label, traj, intent, labeler=opts.labeler),
                                source=traj, folder=store.trajectory_dir(traj.trajectory_id),
                                stop_reasoning=stop_reasoning))
    if opts.labeler == "llm" and kept:
        from webtraj.llm import LLMClient

        client = LLMClient.from_cli(opts.llm, no_cache=opts.no_cache)
        kept = asyncio.run(rewarded(kept, client, AGENTS[opts.policy], rejected))
    return kept, {**counts, "rejected": dict(sorted(rejected.items())),
                  "embedder": embedder.name}


async def rewarded(pairs: list[LabeledPair], client, agent: str,
                   rejected: Counter[str]) -> list[LabeledPair]:
    """The pairs an outcome judge finds accomplished (NNetNav's reward: the judge reads the
    instruction and the prefix's last screenshots); the others are counted by reason."""
    from webtraj.evaluate.outcome.webvoyager import WebVoyagerJudge, WebVoyagerOptions

    judge = WebVoyagerJudge(client, WebVoyagerOptions(k=3, runs=1))
    scores = await asyncio.gather(*(judge.evaluate(prefix_trajectory(p, agent), p.folder)
                                    for p in pairs))
    out = []
    for pair, (score, *_rest) in zip(pairs, scores, strict=True):
        if score.value is None:
            rejected["reward_unscored"] += 1
        elif score.value < 0.5:
            rejected["reward_not_success"] += 1
        else:
            out.append(pair)
    return out


def _word(labels: list, opts: ExploreOptions) -> list[tuple[str, str] | None]:
    """Each label's intent: the rule wording, or a model's rewrite checked to state exactly
    the label's constraints (`curate.relabel_llm`); None where the model's failed."""
    probes = [Task(task_id=f"hindsight.{lb.site}", intent="", site=lb.site,
                   constraints=lb.constraints) for lb, _ in labels]
    names = [[c.name for c in p.constraints] for p in probes]
    ruled = [rule_relabel(p, n, seed=opts.seed) for p, n in zip(probes, names, strict=True)]
    if opts.labeler == "rule":
        return [(r.task.intent, r.stop_reasoning) for r in ruled]
    # The model rewrites the rule wording in a user's voice; nothing is to be removed.
    probes = [p.model_copy(update={"intent": r.task.intent})
              for p, r in zip(probes, ruled, strict=True)]
    from webtraj.curate.relabel_llm import llm_relabel_many
    from webtraj.llm import LLMClient

    client = LLMClient.from_cli(opts.llm, no_cache=opts.no_cache)
    found = asyncio.run(llm_relabel_many(client, list(zip(probes, names, strict=True))))
    return [(r.task.intent, r.stop_reasoning) if not isinstance(r, str) else None
            for r in found]


def _replay(out: Path, opts: ExploreOptions, today: dt.date) -> dict:
    config = RunConfig(tasks_file=str(out / TASKS_FILE), agent="replay",
                       workers=opts.workers, max_steps=max(opts.max_steps + 1, 2),
                       screenshots=opts.screenshots)
    with execute_run(config, out / REPLAY_RUN, new=True) as store:
        ok = errors = n = 0
        for row in store.rows():
            traj = store.load_trajectory(row.trajectory_id)
            n += 1
            if traj.error:
                errors += 1
                continue
            ok += _csr1(store.scores(row.trajectory_id))
    return {"replayed": n, "replay_csr1": ok, "replay_errors": errors}
