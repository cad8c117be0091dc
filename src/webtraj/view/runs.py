"""The runs a viewer shows: found again under its folders on every request (so a run that
starts while the viewer is up appears), each named by a key that is its path relative to the
folder it was found in. Only keys from this list are ever opened."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from webtraj.model.errors import InputError
from webtraj.model.run import RunInfo
from webtraj.report import queries as q
from webtraj.store.run_store import INDEX_DB, RUN_JSON, TRAJECTORIES, find_runs
from webtraj.view.stats import run_stats


class RunRef(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    root: Path

    @property
    def trajectories(self) -> Path:
        return self.root / TRAJECTORIES


class RunRow(BaseModel):
    """One line of the runs page."""

    key: str
    name: str
    agent: str | None
    model: str | None
    date: str
    episodes: int
    errors: int
    sr: float | None
    csr: float | None
    judges: list[str]
    problem: str | None = None


class Catalog:
    """Runs under the viewer's folders (or the runs it was given)."""

    def __init__(self, sources: list[Path]) -> None:
        self.sources = [Path(s).resolve() for s in sources]

    def refs(self) -> list[RunRef]:
        out: list[RunRef] = []
        seen: set[Path] = set()
        for i, src in enumerate(self.sources):
            for run in find_runs(src):
                run = run.resolve()
                if run in seen:
                    continue
                seen.add(run)
                rel = run.relative_to(src).as_posix() if run != src else src.name
                key = rel if len(self.sources) == 1 else f"{i}/{rel}"
                out.append(RunRef(key=key, root=run))
        return out

    def get(self, key: str) -> RunRef | None:
        return next((r for r in self.refs() if r.key == key), None)


def load_info(ref: RunRef) -> RunInfo:
    return RunInfo.load(ref.root / RUN_JSON)


def connect(ref: RunRef) -> sqlite3.Connection | None:
    """The run's index read-only, or None while a starting run has not made one yet."""
    if not (ref.root / INDEX_DB).exists():
        return None
    return q.open_index(ref.root)


def run_row(ref: RunRef) -> RunRow:
    try:
        info = load_info(ref)
    except InputError as exc:
        return RunRow(key=ref.key, name=ref.key, agent=None, model=None, date="", episodes=0,
                      errors=0, sr=None, csr=None, judges=[], problem=str(exc))
    date = dt.datetime.fromtimestamp(info.created_at, tz=dt.UTC).strftime("%Y-%m-%d %H:%M")
    conn = connect(ref)
    if conn is None:
        return RunRow(key=ref.key, name=info.name or ref.key, agent=_agent(info, None),
                      model=info.model.model if info.model else None, date=date, episodes=0,
                      errors=0, sr=None, csr=None, judges=[])
    try:
        st = run_stats(ref.root, conn)
        names, total = st.evaluators, st.total
        agent = _agent(info, q.first_agent(conn))
    finally:
        conn.close()
    return RunRow(key=ref.key, name=info.name or ref.key, agent=agent,
                  model=info.model.model if info.model else None, date=date,
                  episodes=total.n, errors=total.errors, sr=total.sr, csr=total.csr,
                  judges=names)


def _agent(info: RunInfo, indexed: str | None) -> str | None:
    return info.settings.agent if info.settings else (indexed or info.source)
