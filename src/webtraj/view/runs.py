"""The runs a viewer shows: found again under its folders on every request (so a run that
starts while the viewer is up appears), each named by a key that is its path relative to the
folder it was found in. Only keys from this list are ever opened."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from webtraj.model.errors import InputError
from webtraj.model.run import RunInfo
from webtraj.report.usage import run_usage
from webtraj.store.queries import IndexReader, SQLiteError
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
    # The headline evaluator's metrics (`evaluator: SR 0.50 [..] (n=..) · ...`), and usage.
    headline: str | None = None
    usage: str | None = None
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
                # A link under the folder that leads out of it (`runs/x -> ~/...`) is not
                # followed: only runs inside the folders given are listed.
                if run in seen or not run.is_relative_to(src):
                    continue
                seen.add(run)
                rel = run.relative_to(src).as_posix() if run != src else src.name
                key = rel if len(self.sources) == 1 else f"{i}/{rel}"
                out.append(RunRef(key=key, root=run))
        return out

    def get(self, key: str) -> RunRef | None:
        return next((r for r in self.refs() if r.key == key), None)


# What a damaged run raises when read: an unreadable or foreign index.sqlite, a run.json that
# is not a run's, a file that cannot be opened, stored rows that do not parse.
DAMAGE = (InputError, SQLiteError, OSError, ValueError)


def damage_text(exc: BaseException) -> str:
    """Why a run cannot be read, in one line (InputError already names its file)."""
    if isinstance(exc, InputError):
        return str(exc)
    if isinstance(exc, SQLiteError):
        return f"{INDEX_DB} cannot be read: {exc}"
    return f"{type(exc).__name__}: {exc}"


def _not_a_link(path: Path) -> None:
    """A run's own files are read only when they are not links (see store.files)."""
    if path.is_symlink():
        raise InputError("is a symbolic link; the viewer reads no links inside a run",
                         file=path)


def load_info(ref: RunRef) -> RunInfo:
    _not_a_link(ref.root / RUN_JSON)
    return RunInfo.load(ref.root / RUN_JSON)


def connect(ref: RunRef) -> IndexReader | None:
    """The run's index read-only, or None while a starting run has not made one yet."""
    path = ref.root / INDEX_DB
    if not path.exists() and not path.is_symlink():
        return None
    _not_a_link(path)
    return IndexReader.open(ref.root)


def run_row(ref: RunRef) -> RunRow:
    """The run's line; a damaged run's says why (and the other runs are not affected)."""
    try:
        info = load_info(ref)
    except DAMAGE as exc:
        return RunRow(key=ref.key, name=ref.key, agent=None, model=None, date="", episodes=0,
                      errors=0, sr=None, csr=None, judges=[], problem=damage_text(exc))
    try:
        date = dt.datetime.fromtimestamp(info.created_at, tz=dt.UTC).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        date = "?"
    base = dict(key=ref.key, name=info.name or ref.key,
                model=info.model.model if info.model else None, date=date)
    try:
        index = connect(ref)
        if index is None:
            return RunRow(**base, agent=_agent(info, None), episodes=0, errors=0, sr=None,
                          csr=None, judges=[])
        with index:
            st = run_stats(ref.root, index)
            names, total = st.evaluators, st.total
            agent = _agent(info, index.first_agent())
    except DAMAGE as exc:
        return RunRow(**base, agent=_agent(info, None), episodes=0, errors=0, sr=None,
                      csr=None, judges=[], problem=damage_text(exc))
    return RunRow(**base, agent=agent, episodes=st.metrics.episodes,
                  errors=st.metrics.episode_errors, sr=total.sr, csr=total.csr, judges=names,
                  headline=st.metrics.headline_text(), usage=_usage_text(info))


def _usage_text(info: RunInfo) -> str | None:
    """`12 calls · 3400+560 tokens · 2 cached · $0.0123 · 41 s` for the runs page."""
    s = run_usage(info).summary()
    if not s["rows"] and s["wall_s"] is None:
        return None
    parts = []
    if s["rows"]:
        parts += [f"{s['calls']} calls", f"{s['prompt_tokens']}+{s['completion_tokens']} tokens",
                  f"{s['cache_hits']} cached"]
        if s["cost_usd"] is not None:
            parts.append(f"${s['cost_usd']:.4f}")
    if s["wall_s"] is not None:
        parts.append(f"{s['wall_s']:.0f} s")
    return " · ".join(parts)


def _agent(info: RunInfo, indexed: str | None) -> str | None:
    return info.settings.agent if info.settings else (indexed or info.source)
