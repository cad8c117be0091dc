"""Labeling explored trajectories in hindsight: every `interval` actions (and at the end),
the prefix is read by the sandbox oracle as a sub-task (`sites.hindsight`); a sub-task the
episode has not reached before becomes a task whose reference actions are the prefix's.

A label is kept only when it is checked, not assumed: the oracle and the rule judge both find
every constraint met on the page the prefix ends on (CSR 1). The task's wording is the
caller's (rule wording from `curate.relabel`, or a model's)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from webtraj.agents.explore.page import target
from webtraj.dom.tree_text import parse_tree
from webtraj.evaluate.constraints.rule_judge import RuleJudge
from webtraj.generate.levels import difficulty_for
from webtraj.model.action import Action, ActionKind
from webtraj.model.base import FrozenModel
from webtraj.model.exploration import EXPLORATION_KEY
from webtraj.model.task import Constraint, Task
from webtraj.model.trajectory import Observation, Trajectory
from webtraj.sites.hindsight import hindsight_constraints
from webtraj.sites.oracle import Oracle

ORACLE_EVAL = {"evaluator": "constraints", "judge": "oracle", "steps": "all"}
HINDSIGHT_KEY = "hindsight"


class PrefixLabel(FrozenModel):
    """A sub-task reached by the first `prefix` actions of an explored trajectory."""

    trajectory_id: str
    site: str
    prefix: int
    url: str
    page: str
    constraints: tuple[Constraint, ...]
    # Why it was not kept (None: both judges found every constraint met).
    rejected: str | None = None


def prefix_ends(actions: int, interval: int) -> list[int]:
    """The prefix lengths labeled: every `interval` actions, and the whole episode."""
    ends = list(range(interval, actions + 1, interval))
    return ends + [actions] if actions and (not ends or ends[-1] != actions) else ends


def taken(trajectory: Trajectory) -> list[int]:
    """Indices of the steps whose action was carried out (not the stop)."""
    return [s.index for s in trajectory.steps
            if s.action is not None and s.action.kind is not ActionKind.STOP]


def observation_after(trajectory: Trajectory, k: int) -> Observation | None:
    """o_k: the page after the first k steps."""
    if k < len(trajectory.steps):
        return trajectory.steps[k].observation
    return trajectory.final_observation


def label_trajectory(trajectory: Trajectory, oracle: Oracle, interval: int
                     ) -> list[PrefixLabel]:
    """Each new sub-task of the trajectory, at the prefixes `prefix_ends` names, checked."""
    steps = taken(trajectory)
    last = steps[-1] + 1 if steps else 0
    observations = [s.observation for s in trajectory.steps]
    if trajectory.final_observation is not None:
        observations.append(trajectory.final_observation)
    states = [oracle.observe(o.url) for o in observations]
    seen: set[frozenset[tuple[str, str]]] = set()
    out: list[PrefixLabel] = []
    for k in prefix_ends(last, interval):
        obs = observation_after(trajectory, k)
        found = hindsight_constraints(states[:k + 1])
        if obs is None or found is None:
            continue
        key = frozenset((c.name, repr(c.value)) for c in found)
        if key in seen:
            continue
        seen.add(key)
        state = states[k]
        probe = Task(task_id="probe", intent="", constraints=found)
        label = PrefixLabel(trajectory_id=trajectory.trajectory_id, site=state.site,
                            prefix=k, url=obs.url, page=state.page, constraints=found)
        out.append(label.model_copy(update={"rejected": verify(probe, oracle, obs)}))
    return out


def verify(task: Task, oracle: Oracle, obs: Observation) -> str | None:
    """Why `task` is not met on `obs` by the oracle or by the rule judge (None: by both)."""
    for judge, checks in (("oracle", oracle.check_url(task, obs.url).checks),
                          ("rule judge", RuleJudge().check(task, obs))):
        unmet = [c.name for c in checks if not c.matching]
        if unmet:
            return f"the {judge} finds {', '.join(unmet)} unmet"
    return None


def replayable(trajectory: Trajectory, k: int) -> tuple[Action, ...]:
    """The first k actions as reference actions: by role and name (an action by element id
    is named by the element it hit on its step's page), the failed ones left out."""
    out: list[Action] = []
    for step in trajectory.steps[:k]:
        a = step.action
        if a is None or step.error or a.kind is ActionKind.STOP:
            continue
        if a.element_id is not None and a.target is None:
            els = [e for e in parse_tree(step.observation.axtree) if e.id]
            hit = next((e for e in els if e.id == a.element_id), None)
            if hit is None:
                continue
            a = a.model_copy(update={"element_id": None, "target": target(hit, els)})
        out.append(a)
    return (*out, Action(kind=ActionKind.STOP, value=""))


def hindsight_task_id(label: PrefixLabel) -> str:
    digest = hashlib.blake2b(f"{label.trajectory_id}\x1f{label.prefix}".encode(),
                             digest_size=5).hexdigest()
    return f"hindsight.{label.site}.{digest}"


def labeled_task(label: PrefixLabel, trajectory: Trajectory, intent: str,
                 *, labeler: str) -> Task:
    """The task a kept label becomes: reproducible by `--agent replay` from its start URL."""
    source = trajectory.task
    meta = {k: v for k, v in source.metadata.items() if k in ("suite", "sandbox",
                                                                  EXPLORATION_KEY)}
    meta[HINDSIGHT_KEY] = {"trajectory": trajectory.trajectory_id, "prefix": label.prefix,
                           "page": label.page, "labeler": labeler}
    return Task(task_id=hindsight_task_id(label), intent=intent, site=label.site,
                start_url=source.start_url, constraints=label.constraints,
                difficulty=difficulty_for(len(label.constraints)),
                reference_actions=replayable(trajectory, label.prefix),
                evaluators=(ORACLE_EVAL,), metadata=meta)


def distinct(tasks: Sequence[Task]) -> tuple[int, int]:
    """(distinct intents, distinct constraint-name combinations)."""
    return (len({t.intent for t in tasks}),
            len({(t.site, tuple(sorted(c.name for c in t.constraints))) for t in tasks}))
