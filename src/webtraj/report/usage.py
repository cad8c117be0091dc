"""A run's model usage by role (the agent, the judges) and model, with an estimated cost when
the user gives prices (`--prices FILE`: `{"model": {"prompt": USD per 1M tokens,
"completion": ...}}`, `*` globs allowed), and the run's wall time.

`run.json` keeps `usage.agent` and `usage.judges` (runs written before that keep only the
total, `usage.llm`, shown as role "all")."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from webtraj.llm.usage import RUN_USAGE_KEY, ModelUsage, PriceTable, Usage
from webtraj.model.errors import InputError, from_validation_error
from webtraj.model.jsonfile import read_json
from webtraj.model.run import RunInfo
from webtraj.store.queries import IndexReader

ROLES = ("agent", "judges")


class UsageRow(BaseModel):
    role: str
    model: str
    usage: ModelUsage
    cost_usd: float | None = None


class RunUsage(BaseModel):
    roles: dict[str, Usage] = {}
    wall_s: float | None = None

    def rows(self, prices: PriceTable | None = None) -> list[UsageRow]:
        out = []
        for role, usage in self.roles.items():
            for model, u in sorted(usage.models.items()):
                cost = (prices.cost(model, u.prompt_tokens, u.completion_tokens)
                        if prices is not None else u.cost_usd)
                out.append(UsageRow(role=role, model=model, usage=u, cost_usd=cost))
        return out

    def summary(self, prices: PriceTable | None = None) -> dict[str, Any]:
        """Totals for JSON output and one-line displays."""
        rows = self.rows(prices)
        costs = [r.cost_usd for r in rows if r.cost_usd is not None]
        total = ModelUsage()
        for r in rows:
            total = total + r.usage
        return {"calls": total.calls, "cache_hits": total.cache_hits,
                "prompt_tokens": total.prompt_tokens,
                "completion_tokens": total.completion_tokens,
                "cost_usd": sum(costs) if costs and len(costs) == len(rows) else None,
                "wall_s": self.wall_s,
                "rows": [r.model_dump(mode="json") for r in rows]}


def run_usage(info: RunInfo) -> RunUsage:
    data: Mapping[str, Any] = info.usage or {}
    roles = {role: Usage.from_run_usage(data[role]) for role in ROLES
             if isinstance(data.get(role), Mapping)}
    if not roles and isinstance(data.get(RUN_USAGE_KEY), Mapping):
        roles = {"all": Usage.from_run_usage(data[RUN_USAGE_KEY])}
    roles = {k: v for k, v in roles.items() if v.models}
    wall = info.timings.get("total_s")
    return RunUsage(roles=roles, wall_s=wall)


def trajectory_usage(usage: Usage | None) -> ModelUsage | None:
    """The agent's usage for one episode (`Trajectory.usage`), all models together; None when
    the agent reported none."""
    return usage.total if usage is not None and usage.models else None


def judge_usage(index: IndexReader) -> dict[str, dict[str, ModelUsage]]:
    """trajectory id -> evaluator -> the model use its current score cost (`Score.usage`,
    written by the scoring of each trajectory)."""
    return {tid: {ev: usage.total for ev, usage in per.items()}
            for tid, per in index.current_usage().items()}


def load_prices(path: str | Path) -> PriceTable:
    """A prices file: JSON (or YAML) mapping model names to USD per million tokens."""
    data = read_json(Path(path), what="the prices file") if str(path).endswith(".json") \
        else _yaml(Path(path))
    if isinstance(data, Mapping) and "prices" not in data:
        data = {"prices": data}
    try:
        return PriceTable.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, file=str(path)) from None


def _yaml(path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        raise InputError(f"cannot read the prices file: {exc.strerror}", file=str(path)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {exc}", file=str(path)) from None
