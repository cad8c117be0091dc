"""Curation statistics in the paper's terms (the constraint-based evaluation paper: 150k
trajectories -> ~16k fully
successful, ~65k with a usable prefix -> ~300k training steps), plus every drop by reason.

Deterministic: no timings, sorted keys, so `stats.json` is byte-identical across executors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field
from rich.markup import escape
from rich.table import Table

from webtraj.agents.prompt_builder import PromptOptions
from webtraj.curate.instance import Drop, DropReason
from webtraj.model.base import FrozenModel

if TYPE_CHECKING:
    from webtraj.curate.pipeline import Curated


class CurationStats(FrozenModel):
    model_config = FrozenModel.model_config | {"frozen": False}

    judge: str
    second_judge: str | None = None
    relabel: str
    seed: int
    val_fraction: float
    # How every record's prompt was built (the llm agent's options that send the same
    # messages): a dataset says which agent settings it trains for.
    prompt: PromptOptions = PromptOptions()
    trajectories: int = 0
    steps_in: int = 0
    # CSR of the final observation = 1 (the paper's "completely successful").
    fully_successful: int = 0
    # Kept instances: C_max > 0 after every filter (the paper's "usable prefix").
    with_usable_prefix: int = 0
    full_instances: int = 0
    partial_instances: int = 0
    relabeled: int = 0
    relabel_failed: int = 0
    steps_kept: int = 0
    records: dict[str, int] = Field(default_factory=dict)   # by RecordKind
    invalid_stops_not_kept: int = 0
    steps_without_action: int = 0
    dropped: dict[str, int] = Field(default_factory=dict)   # by DropReason
    # Observations the (first) judge left unscored (None: unknown, never 0 or 1).
    unscored_observations: int = 0
    trajectories_with_unscored: int = 0
    # Kept instances with an unscored observation before t' (t' might not be minimal).
    unscored_before_best: int = 0
    rescored_trajectories: int = 0
    split_records: dict[str, int] = Field(default_factory=dict)
    split_tasks: dict[str, int] = Field(default_factory=dict)

    def add(self, c: Curated, split: str) -> None:
        """Count one trajectory's curation (a kept one's records into `split`)."""
        self.trajectories += 1
        if c.n_steps is not None:  # readable
            self.steps_in += c.n_steps
            if c.final_csr is not None and c.final_csr >= 1.0 - 1e-9:
                self.fully_successful += 1
            self.unscored_observations += c.unscored
            self.trajectories_with_unscored += int(c.unscored > 0)
        if isinstance(c.outcome, Drop):
            reason = c.outcome.reason
            self.dropped[reason.value] = self.dropped.get(reason.value, 0) + 1
            self.relabel_failed += int(reason is DropReason.RELABEL_FAILED)
            return
        inst = c.outcome
        self.with_usable_prefix += 1
        if inst.c_max >= 1.0 - 1e-9:
            self.full_instances += 1
        else:
            self.partial_instances += 1
        self.relabeled += int(inst.relabeled)
        self.steps_kept += len(inst.steps)
        for s in inst.steps:
            self.records[s.kind.value] = self.records.get(s.kind.value, 0) + 1
        self.invalid_stops_not_kept += inst.invalid_stops
        self.steps_without_action += inst.skipped_no_action
        self.unscored_before_best += int(inst.unscored_before_best > 0)
        self.split_records[split] = self.split_records.get(split, 0) + len(inst.steps)

    def merge(self, other: CurationStats) -> None:
        """Add another chunk's counts (same settings)."""
        for name in ("trajectories", "steps_in", "fully_successful", "with_usable_prefix",
                     "full_instances", "partial_instances", "relabeled", "relabel_failed",
                     "steps_kept", "invalid_stops_not_kept", "steps_without_action",
                     "unscored_observations", "trajectories_with_unscored",
                     "unscored_before_best"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("records", "dropped", "split_records"):
            mine = getattr(self, name)
            for k, v in getattr(other, name).items():
                mine[k] = mine.get(k, 0) + v

    def to_json(self) -> dict:
        data = self.model_dump(mode="json")
        for name in ("records", "dropped", "split_records", "split_tasks"):
            data[name] = dict(sorted(data[name].items()))
        return data


def stats_table(s: CurationStats) -> Table:
    def pct(n: int) -> str:
        return f"{n / s.trajectories:.1%}" if s.trajectories else "-"

    judges = s.judge + (f" + {s.second_judge}" if s.second_judge else "")
    table = Table(title=f"Curation ({escape(judges)}, relabel {s.relabel}, seed {s.seed})")
    table.add_column("", style="bold")
    table.add_column("count", justify="right")
    table.add_column("of trajectories", justify="right")
    rows = [("trajectories", s.trajectories, pct(s.trajectories)),
            ("steps in", s.steps_in, ""),
            ("fully successful (final CSR = 1)", s.fully_successful, pct(s.fully_successful)),
            ("with a usable prefix (kept)", s.with_usable_prefix, pct(s.with_usable_prefix)),
            ("  reaching CSR = 1", s.full_instances, pct(s.full_instances)),
            ("  partial, 0 < C_max < 1", s.partial_instances, pct(s.partial_instances)),
            ("  relabeled", s.relabeled, pct(s.relabeled)),
            ("steps kept (records)", s.steps_kept, ""),
            *((f"  {k}", v, "") for k, v in sorted(s.records.items())),
            ("agent stops not kept as is", s.invalid_stops_not_kept, ""),
            ("steps without a valid action", s.steps_without_action, ""),
            ("unscored observations", s.unscored_observations, ""),
            ("trajectories with unscored steps", s.trajectories_with_unscored,
             pct(s.trajectories_with_unscored)),
            ("rescored trajectories", s.rescored_trajectories, ""),
            *((f"dropped: {k}", v, pct(v)) for k, v in sorted(s.dropped.items())),
            *((f"split {k}: records / tasks", v, str(s.split_tasks.get(k, 0)))
              for k, v in sorted(s.split_records.items()))]
    if s.relabel_failed:
        rows.append(("relabel failures (dropped)", s.relabel_failed, ""))
    for name, n, share in rows:
        table.add_row(escape(name), str(n), share)
    return table
