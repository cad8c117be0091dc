"""Curation of trajectories (the constraint-based evaluation paper, §2.2), decided here once:
the judge's per-step curve from the stored score, the smallest best prefix and the two-judge
filter (`select_prefix`), hindsight relabeling (rule-based, or by a model), valid stops
(`build_instance`) and the records in chat form (`render`). Every executor runs this one
function; they only chunk, place and write.

Model relabeling is one batch per call (the model answers many requests at once), so a
trajectory needing it waits, and the others finish as they come; results stay in input
order, whatever waited."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webtraj.curate.chat_records import render
from webtraj.curate.curve import CSRCurve, curve_from_score
from webtraj.curate.instance import (
    Drop,
    DropReason,
    Instance,
    Selection,
    build_instance,
    select_prefix,
)
from webtraj.curate.relabel import Relabeled, rule_relabel
from webtraj.curate.settings import CurateSettings
from webtraj.model.curation import CurationDecision
from webtraj.model.task import Task
from webtraj.model.trajectory import Trajectory
from webtraj.store.reader import Loaded

# Model relabeling of a batch: for each (task, constraints met at o_t'), in order, the
# relabeled task or why it failed (`curate.relabel_llm.llm_relabel_many` on a client).
LLMRelabel = Callable[[Sequence[tuple[Task, tuple[str, ...]]]],
                      Coroutine[Any, Any, list[Relabeled | str]]]


@dataclass(frozen=True, slots=True)
class Curated:
    """One trajectory's curation: kept as an Instance (with its records) or dropped, and
    what its first judge's curve said (for the statistics)."""

    trajectory_id: str
    settings: CurateSettings
    outcome: Instance | Drop
    # The prefix the curve(s) chose, also for trajectories dropped after choosing one.
    selection: Selection | None = None
    # One {"messages": [...]} record per kept step, in step order (none when dropped).
    records: list[dict[str, Any]] = field(default_factory=list)
    # Steps of the trajectory; None when its trajectory.json could not be read.
    n_steps: int | None = None
    # The first judge's CSR at the last observation and its unscored observations, when it
    # gave a curve.
    final_csr: float | None = None
    unscored: int = 0

    @property
    def instance(self) -> Instance | None:
        return self.outcome if isinstance(self.outcome, Instance) else None

    def decision(self, *, dataset: str = "", curated_at: float | None = None,
                 split: str | None = None) -> CurationDecision:
        """The decision kept with the run (the viewer shows it), stamped with the dataset
        it went into."""
        inst, sel = self.instance, self.selection
        drop = self.outcome if isinstance(self.outcome, Drop) else None
        best = sel.best if sel is not None else None
        return CurationDecision(
            trajectory_id=self.trajectory_id, dataset=dataset, curated_at=curated_at,
            judge=self.settings.judge, second_judge=self.settings.second_judge,
            kept=inst is not None, drop_reason=drop.reason.value if drop else None,
            detail=drop.detail if drop else "", c_max=best.c_max if best else None,
            t_best=best.t_best if best else None,
            final_csr=sel.final_csr if sel is not None else None,
            satisfied=sel.satisfied if sel is not None else (),
            relabeled_task=inst.task if inst is not None and inst.relabeled else None,
            records=tuple((k.t, k.kind.value) for k in inst.steps) if inst else (),
            split=split, invalid_stops=inst.invalid_stops if inst else 0)


@dataclass(frozen=True, slots=True)
class _Selected:
    """A trajectory whose curve(s) chose a prefix, before relabeling."""

    trajectory: Trajectory
    selection: Selection
    final_csr: float | None
    unscored: int
    folder: str | None = None


def curate_trajectories(loaded: Iterable[Loaded], settings: CurateSettings, *,
                        llm_relabel: LLMRelabel | None = None) -> list[Curated]:
    """Each loaded trajectory curated, in input order. `llm_relabel` answers for the
    partial prefixes when `settings.relabel` is "llm" (one batch for all of them)."""
    out: list[Curated | None] = []
    waiting: list[tuple[int, str, _Selected]] = []
    evaluators = settings.evaluators()
    for ld in loaded:
        chosen = _select(ld, settings, evaluators)
        if isinstance(chosen, Curated):
            out.append(chosen)
        elif chosen.selection.needs_relabel and settings.relabel == "llm":
            waiting.append((len(out), ld.trajectory_id, chosen))
            out.append(None)
        else:
            relabeled = None
            if chosen.selection.needs_relabel and settings.relabel == "rule":
                relabeled = rule_relabel(chosen.trajectory.task, chosen.selection.satisfied,
                                         seed=settings.seed)
            out.append(_finish(ld.trajectory_id, chosen, relabeled, settings))
    if waiting:
        if llm_relabel is None:
            raise ValueError("relabel 'llm' needs a model relabeler (--llm)")
        batch = [(c.trajectory.task, c.selection.satisfied) for _, _, c in waiting]
        answers = asyncio.run(llm_relabel(batch))
        for (i, tid, chosen), answer in zip(waiting, answers, strict=True):
            out[i] = _finish(tid, chosen, answer, settings)
    return out  # type: ignore[return-value]  # every waiting place was filled


def _select(ld: Loaded, settings: CurateSettings, evaluators: list[str]
            ) -> Curated | _Selected:
    """The curve(s) of a loaded trajectory (from the scores of `evaluators`: the first
    judge's, then the second's) and the prefix they choose, or its drop."""
    if ld.trajectory is None:
        return Curated(ld.trajectory_id, settings,
                       Drop(reason=DropReason.UNREADABLE, detail=ld.error or ""))
    traj = ld.trajectory
    n_obs = len(traj.observations)
    first_ev, *rest = evaluators
    curve = curve_from_score(ld.scores.get(first_ev), n_obs, ld.step_matches.get(first_ev))
    second = (curve_from_score(ld.scores.get(rest[0]), n_obs, ld.step_matches.get(rest[0]))
              if rest else None)
    final_csr, unscored = ((curve.values[-1], curve.unscored) if isinstance(curve, CSRCurve)
                           else (None, 0))
    sel = select_prefix(traj, curve, second)
    if isinstance(sel, Drop):
        return Curated(ld.trajectory_id, settings, sel, n_steps=len(traj.steps),
                       final_csr=final_csr, unscored=unscored)
    return _Selected(traj, sel, final_csr, unscored, ld.folder)


def _finish(trajectory_id: str, chosen: _Selected, relabeled: Relabeled | str | None,
            settings: CurateSettings) -> Curated:
    """The instance and its records for a chosen prefix (`relabeled` is the relabeled task,
    why the model relabeling failed, or None when there was none)."""
    traj, sel = chosen.trajectory, chosen.selection
    records: list[dict[str, Any]] = []
    outcome: Instance | Drop
    if isinstance(relabeled, str):
        outcome = Drop(reason=DropReason.RELABEL_FAILED, detail=relabeled)
    else:
        try:
            outcome = build_instance(traj, sel, relabeled, seed=settings.seed)
            records = render(traj, outcome, settings.prompt,
                             Path(chosen.folder) if chosen.folder else None)
        except ValueError as exc:
            outcome = Drop(reason=DropReason.INVALID, detail=str(exc))
    return Curated(trajectory_id, settings, outcome, selection=sel, records=records,
                   n_steps=len(traj.steps), final_csr=chosen.final_csr,
                   unscored=chosen.unscored)
