"""The `miniwob` evaluator: MiniWoB++'s own reward, read from the episode's HAR.

The page reports its episode (instruction at the start; reward, raw reward and reason at the
end) to the suite's server with requests the HAR records (webtraj.suites.miniwob), so the
agent never sees the reward and a stored run can be scored again without any server.

Value: success, 1.0 when the raw reward is > 0 (MiniWoB++'s usual success criterion), else
0.0; `details` keep the raw reward, the time-discounted reward and the page's reason. An
episode that ended before the page gave a reward scores 0 (the task was not done). Per step:
success as known at each observation o_0..o_T (0 until the reward arrived), for curves and
curation. A missing trace, a page that never started, or an instruction that differs from
the task's intent is unscored with the reason, never a 0."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import orjson
from pydantic import BaseModel, ConfigDict

from webtraj.evaluate.metric_families import Family, Metric
from webtraj.evaluate.protocol import EvalEnv, SyncEvaluator
from webtraj.evaluate.registry import Entry
from webtraj.formats.har_reader import parse_trace
from webtraj.model import InputError, Score, Trajectory
from webtraj.store.files import read_artifact
from webtraj.suites.miniwob.paths import REWARD_PATH, START_PATH

NAME = "miniwob"


class MiniWoBOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    evaluator: Literal["miniwob"] = "miniwob"
    # Unscored (rather than scored) when the page's instruction differs from the intent.
    check_intent: bool = True


def _events(entries: list[dict[str, Any]], path: str) -> list[tuple[float, dict[str, Any]]]:
    out = []
    for entry in entries:
        req = entry.get("request") or {}
        if req.get("method") != "POST" or not str(req.get("url", "")).split("?")[0] \
                .endswith(path):
            continue
        body = _payload(req)
        if body is not None:
            out.append((_when(entry.get("startedDateTime")), body))
    return sorted(out, key=lambda e: e[0])


def _payload(request: dict[str, Any]) -> dict[str, Any] | None:
    """The page's report: the `d` query parameter (always in a HAR), else the body."""
    texts = [q.get("value") for q in request.get("queryString") or () if q.get("name") == "d"]
    if not texts:
        query = parse_qs(urlsplit(str(request.get("url", ""))).query).get("d")
        texts = list(query or ())
    texts.append((request.get("postData") or {}).get("text"))
    for text in texts:
        try:
            body = orjson.loads(text) if text else None
        except orjson.JSONDecodeError:
            continue
        if isinstance(body, dict):
            return body
    return None


def _when(stamp: Any) -> float:
    try:
        return dt.datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")


def _capture_times(traj: Trajectory) -> list[float]:
    """When each observation o_0..o_T was taken (o_{t+1} at the end of step t)."""
    times = []
    for i, step in enumerate(traj.steps):
        if i == 0:
            times.append(step.started_at or 0.0)
        times.append((step.started_at or 0.0) + (step.duration_s or 0.0))
    if not traj.steps and traj.final_observation is not None:
        times.append(traj.finished_at or float("inf"))
    return times[: len(traj.observations)]


class MiniWoBEvaluator(SyncEvaluator):
    name = NAME

    def __init__(self, options: MiniWoBOptions) -> None:
        self.options = options

    def score(self, trajectory: Trajectory, artifacts: Path | None) -> list[Score]:
        if not trajectory.network_trace:
            why = "the trajectory has no network trace (HAR) to read the page's reward from"
            if trajectory.error:
                why += f"; the episode failed: {trajectory.error}"
            return [Score.unscored(NAME, why, error=trajectory.error is None)]
        folder, name = artifacts or Path("."), trajectory.network_trace
        try:
            entries = parse_trace(read_artifact(folder, name), name, file=f"{folder}/{name}")
        except InputError as exc:
            return [Score.unscored(NAME, str(exc), error=True)]
        starts = _events(entries, START_PATH)
        rewards = _events(entries, REWARD_PATH)
        if not starts:
            return [Score.unscored(NAME, "the MiniWoB++ page never started its episode "
                                   f"(no {START_PATH} request in {name})")]
        query = starts[0][1].get("query")
        if self.options.check_intent and str(query).strip() != trajectory.task.intent.strip():
            return [Score.unscored(NAME, f"the page showed the instruction {query!r}, not the "
                                   f"task's intent {trajectory.task.intent!r}")]
        details: dict[str, Any] = {"query": query,
                                   "time_limit_ms": starts[0][1].get("time_limit_ms"),
                                   "episodes_started": len(starts)}
        n_obs = len(trajectory.observations)
        if not rewards:
            details.update(done=False, raw_reward=None, reward=None,
                           reason="the episode ended before the page gave a reward")
            return [Score(evaluator=NAME, value=0.0, details=details,
                          step_values=(0.0,) * n_obs if n_obs else None)]
        when, body = rewards[0]
        raw = body.get("raw_reward")
        if not isinstance(raw, int | float):
            return [Score.unscored(NAME, f"the page reported no numeric raw reward: {body!r}",
                                   error=True)]
        value = 1.0 if raw > 0 else 0.0
        details.update(done=True, raw_reward=raw, reward=body.get("reward"),
                       reason=body.get("reason"), elapsed_ms=body.get("elapsed_ms"))
        if len(rewards) > 1:  # the agent reloaded the page: only the first episode counts
            details["later_raw_rewards"] = [b.get("raw_reward") for _, b in rewards[1:]]
        steps = tuple(value if when <= t else 0.0 for t in _capture_times(trajectory))
        if len(steps) == n_obs and n_obs and trajectory.final_observation is not None:
            steps = steps[:-1] + (value,)  # the final observation comes after the reward
        return [Score(evaluator=NAME, value=value, details=details,
                      step_values=steps if len(steps) == n_obs and n_obs else None)]


def factory(options: MiniWoBOptions, env: EvalEnv) -> MiniWoBEvaluator:
    return MiniWoBEvaluator(options)


FAMILY = Family(name="miniwob", label="MiniWoB++", order=20,
                        value_label="success", metrics=(
    Metric(key="success", label="success", source="success",
           help="share of scored episodes with a raw reward > 0"),
    Metric(key="reward", label="reward", source="detail", detail="reward",
           help="mean time-discounted reward the page gave (episodes it gave one)")))

# The evaluator's registry entry, contributed to `evaluate.registry` through the suite
# registry (`webtraj.model.suite_registry`).
ENTRY = Entry(NAME, factory, MiniWoBOptions,
              "MiniWoB++: the page's own reward (success = raw reward > 0)", FAMILY)
