"""The WebArena-Verified evaluators as registry evaluators of webtraj trajectories.

The trajectory supplies the agent's answer and its HAR (`network_trace`, relative to the
artifacts folder); the task's metadata supplies `sites`, and its `AgentResponseEvaluator`
config the task type. Site base URLs come from `EvalEnv.site_urls`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webtraj.evaluate.metric_families import Family, Metric
from webtraj.evaluate.protocol import EvalEnv, SyncEvaluator
from webtraj.evaluate.registry import Entry
from webtraj.formats.har_reader import HarEntry
from webtraj.model import InputError, Score, Trajectory
from webtraj.suites.webarena_verified.evaluate.config import AgentResponseConfig, NetworkEventConfig
from webtraj.suites.webarena_verified.evaluate.context import TaskContext
from webtraj.suites.webarena_verified.evaluate.network import NetworkEventEvaluator
from webtraj.suites.webarena_verified.evaluate.response import AgentResponseEvaluator
from webtraj.suites.webarena_verified.evaluate.runner import task_type_of
from webtraj.suites.webarena_verified.evaluate.sites import SiteUrls, site_key


class WavEvaluator(SyncEvaluator):
    def __init__(self, config: AgentResponseConfig | NetworkEventConfig, env: EvalEnv) -> None:
        self.name = instance_name(config)
        self._config = config
        self._evaluator = (AgentResponseEvaluator(config)
                           if isinstance(config, AgentResponseConfig)
                           else NetworkEventEvaluator(config))
        self._env = env

    def _entries(self, trajectory: Trajectory, artifacts: Path | None
                 ) -> list[HarEntry] | None:
        if not trajectory.network_trace:
            return None
        return self._env.traces.entries(artifacts or Path("."), trajectory.network_trace)

    def score(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        task = trajectory.task
        try:
            if self._env.site_urls is None:
                raise InputError("no site URLs given (EvalEnv.site_urls)")
            sites = task.metadata.get("sites") or ([task.site] if task.site else [])
            if not isinstance(sites, list):
                raise InputError("must be a list of site names", record=task.task_id,
                                 field="metadata.sites")
            ctx = TaskContext(
                task_id=task.task_id, sites=tuple(site_key(str(s)) for s in sites),
                task_type=_task_type(task, self._config),
                site_urls=SiteUrls(self._env.site_urls),
                entries=self._entries(trajectory, artifacts), agent_response=trajectory.answer)
            if self._env.served_sites:
                _check_on_served_sites(ctx)
        except (InputError, ValueError) as exc:
            return [Score.unscored(self.name, str(exc), error=True)]
        score = self._evaluator.evaluate(ctx).to_score()
        return [score.model_copy(update={"evaluator": self.name})]


def instance_name(config: AgentResponseConfig | NetworkEventConfig) -> str:
    """A network check is named by the request it looks for (`NetworkEventEvaluator[GET
    __HOTELS__/search]`, `[no POST ...]` for one that must not happen), so a task's checks
    keep apart by what they check, not by their order."""
    if not isinstance(config, NetworkEventConfig):
        return config.evaluator
    url = config.expected.url
    if isinstance(url, list):
        url = f"{url[0]} (or {len(url) - 1} more)" if len(url) > 1 else (url[0] if url else "")
    url = str(url or "").split("?")[0]
    method = str(config.expected.http_method or "GET").upper()
    prefix = "no " if config.should_not_exist else ""
    return f"{config.evaluator}[{prefix}{method} {url}]"


def _check_on_served_sites(ctx: TaskContext) -> None:
    """A trace none of whose requests is at the origin of the task's sites was made against
    other URLs (a sandbox since served on other ports): no verdict, rather than a vacuous pass
    of a `should_not_exist` check or a failure of an expected request."""
    if ctx.entries is None:
        return
    events = ctx.evaluation_events
    origins = {_origin(b) for s in ctx.sites for b in ctx.site_urls.urls.get(s, ())}
    origins.discard(None)
    if events and origins and not any(_origin(ev.url) in origins for ev in events):
        raise ValueError(f"none of the trace's {len(events)} requests is on the task's sites "
                         f"({', '.join(sorted(':'.join(map(str, o)) for o in origins))}): "
                         "the trajectory was made against other site URLs than the run's")


def _origin(url: str) -> tuple[str, str, int] | None:
    try:
        p = urlsplit(url.strip())
        port = p.port or {"http": 80, "https": 443}.get(p.scheme.lower())
    except ValueError:
        return None
    if not p.hostname or port is None:
        return None
    return p.scheme.lower(), p.hostname.lower(), port


def _task_type(task: Any, config: AgentResponseConfig | NetworkEventConfig) -> str:
    """From the task's AgentResponseEvaluator (WebArena-Verified), else from
    `metadata.task_type` (webtraj tasks that judge no agent response, e.g. the sandbox)."""
    try:
        return task_type_of([dict(c) for c in task.evaluators]
                            + [config.model_dump(mode="json")])
    except InputError:
        declared = task.metadata.get("task_type")
        if isinstance(declared, str) and declared.strip():
            return declared.strip().upper()
        raise InputError("the task has no AgentResponseEvaluator with an expected task_type "
                         "and no metadata.task_type", record=task.task_id,
                         field="eval") from None


FAMILY = Family(
    name="webarena-verified", label="WebArena-Verified", grouped=True, order=30, value_label="pass",
    metrics=(
        Metric(key="pass", label="pass", source="all_pass",
               help="share of episodes where every check of the task passed"),
        Metric(key="check_pass", label="check pass", source="success",
               help="share of scored checks that passed")))

# The evaluators' registry entries, contributed to `evaluate.registry` through the suite
# registry (`webtraj.model.suite_registry`).
AGENT_RESPONSE = Entry("AgentResponseEvaluator", WavEvaluator, AgentResponseConfig,
                       "WebArena-Verified: the agent's final structured answer", FAMILY)
NETWORK_EVENT = Entry("NetworkEventEvaluator", WavEvaluator, NetworkEventConfig,
                      "WebArena-Verified: a request in the trajectory's HAR", FAMILY)
