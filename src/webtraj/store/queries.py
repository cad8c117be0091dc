"""The typed read API of a run's index: everything report, view, cli and evaluate read from
index.sqlite, as pydantic rows, through a read-only connection. The SQL on the run index
lives in store/ and nowhere else; the viewer and report never load all trajectories, and
every table and page of the list is one query.

An index with summary tables that describe its scores exactly (version 2, store.summary_tables)
is read from them; an older one, or one whose summary a write bypassed, from every stored
score (the same numbers, more slowly). An index too old or too new to read raises
migrations.IndexTooOld / IndexTooNew, naming the command that upgrades it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

import orjson
from pydantic import BaseModel, ValidationError

from webtraj.model.curation import CurationDecision
from webtraj.model.ordering import natural_text
from webtraj.model.score import Score
from webtraj.model.usage import Usage
from webtraj.store import summary_tables
from webtraj.store.decisions import decisions_of
from webtraj.store.index import connect_read_only, score_from_row
from webtraj.store.listing import ListQuery, states, trajectory_page
from webtraj.store.rows import ROW_COLS, TrajectoryRow
from webtraj.store.run_store import INDEX_DB
from webtraj.store.summary_tables import current_join, latest_join, score_error

# What reading a damaged index raises (a file that is not SQLite, a locked or truncated one);
# named here so the layers above never import sqlite3. The LLM cache raises the same.
DatabaseError = sqlite3.DatabaseError
SQLiteError = sqlite3.Error


class LatestScore(NamedTuple):
    """A trajectory's newest score of one evaluator, as the index columns hold it."""

    value: float | None
    error: bool
    has_constraints: bool


class Cell(BaseModel):
    group: tuple[str, ...]
    n: int
    errors: int
    scored: int
    unscored: int
    sr: float | None
    csr: float | None


def total_of(cells: list[Cell]) -> Cell:
    """The run's totals from its cells (SR and CSR are means over the scored episodes, so
    the cells' means weigh by their scored counts): one pass over the index, not two."""
    scored = sum(c.scored for c in cells)

    def mean(attr: str) -> float | None:
        parts = [(getattr(c, attr), c.scored) for c in cells if getattr(c, attr) is not None]
        return sum(v * n for v, n in parts) / scored if parts and scored else None

    return Cell(group=("all",), n=sum(c.n for c in cells), errors=sum(c.errors for c in cells),
                scored=scored, unscored=sum(c.unscored for c in cells), sr=mean("sr"),
                csr=mean("csr"))


class ConstraintRow(BaseModel):
    name: str
    n: int
    met: int
    not_met: int
    unknown: int
    rate: float | None
    # Mean index of the first observation where the constraint was met (None: never met).
    first_met: float | None = None


class Agreement(BaseModel):
    a: str
    b: str
    both: int
    agree: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.both if self.both else None


class ConstraintAgreement(Agreement):
    """Two judges on one constraint: of the final judgements both decided (met or not met),
    how many agree; `only_a` / `only_b`: decided by one judge, unknown to the other."""

    name: str
    only_a: int = 0
    only_b: int = 0


class ScoreCounts(BaseModel):
    """Current scores of one evaluator (or a group of them) over a run's episodes: an
    episode that ended in an error, or whose score is an evaluator error, is an *error*; a
    score the evaluator could not decide is *unscored*; the rest is *scored*, of which
    `success` reached 1 and whose values sum to `total`."""

    episodes: int = 0
    errors: int = 0
    scored: int = 0
    unscored: int = 0
    success: int = 0
    total: float = 0.0
    # Scores that carry per-constraint judgements (their value is a CSR).
    with_constraints: int = 0

    @property
    def mean(self) -> float | None:
        """The mean value of the scored episodes (None when none is scored)."""
        return self.total / self.scored if self.scored else None

    def __add__(self, other: ScoreCounts) -> ScoreCounts:
        return ScoreCounts(**{k: getattr(self, k) + getattr(other, k)
                              for k in ScoreCounts.model_fields})


# The columns of ScoreCounts over `IndexReader._current()`'s rows: an episode that ended in an
# error, or a score that is an evaluator error, is an error; an undecided score is unscored.
_COUNTS = ("COUNT(*), SUM(err OR (value IS NULL AND serr)), SUM(NOT err AND value IS NOT NULL), "
           "SUM(NOT err AND value IS NULL AND NOT serr), SUM(NOT err AND value >= 1.0), "
           "SUM(CASE WHEN NOT err THEN value END), SUM(hc)")


class UnscoredReason(BaseModel):
    evaluator: str
    reason: str
    error: bool


def _judge_pairs(names: list[str]) -> list[tuple[str, str]]:
    judges = [n for n in names if n.startswith("constraints")]
    return [(a, b) for i, a in enumerate(judges) for b in judges[i + 1:]]


class IndexReader:
    """One run's index opened read-only (`open(root)`); close it (or use `with`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        conn.create_function("natural_text", 1, natural_text, deterministic=True)
        # An index written before `intent`/`answer` existed reads as if those were empty.
        cols = {r[1] for r in conn.execute("PRAGMA table_info(trajectories)")}
        if "intent" not in cols:
            conn.execute("CREATE TEMP VIEW tv AS SELECT *, NULL AS intent, NULL AS answer "
                         "FROM main.trajectories")
        else:
            conn.execute("CREATE TEMP VIEW tv AS SELECT * FROM main.trajectories")
        # Checked once per reader (it counts the score rows).
        self.has_summary = summary_tables.current(conn)
        self._current_scores: str | None = None

    @classmethod
    def open(cls, root: Path) -> IndexReader:
        conn = connect_read_only(Path(root) / INDEX_DB)
        try:
            return cls(conn)
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> IndexReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the run's tables -----------------------------------------------------------------
    def evaluators(self) -> list[str]:
        """Evaluator names with a stored score (from the summary's primary key when the index
        has it: score_sets rows carry every per-step value and are slow to scan)."""
        if self.has_summary:  # one seek per name along the primary key
            sql = ("WITH RECURSIVE e(x) AS (SELECT MIN(evaluator) FROM current_scores UNION "
                   "ALL SELECT (SELECT MIN(evaluator) FROM current_scores WHERE evaluator > x) "
                   "FROM e WHERE x IS NOT NULL) SELECT x FROM e WHERE x IS NOT NULL")
        else:
            sql = "SELECT DISTINCT evaluator FROM score_sets ORDER BY evaluator"
        return [r[0] for r in self._conn.execute(sql)]

    def _join(self, alias: str, kind: str = "LEFT JOIN") -> str:
        return current_join(self.has_summary, alias, kind)

    def _summary_cells(self, ev: str | None) -> list[Cell]:
        """Site x difficulty cells from two index-only scans: trajectory counts by cell, and
        the current scores of `ev` by cell (summary tables)."""
        counts: dict[tuple[str, str], list] = {}
        for site, diff, err, n in self._conn.execute(
                "SELECT site, difficulty, error IS NOT NULL, COUNT(*) FROM tv "
                "GROUP BY site, difficulty, error IS NOT NULL"):
            row = counts.setdefault((site or "-", diff or "-"), [0, 0, 0, 0, None, None])
            row[0] += n
            row[1] += n if err else 0
        serr = score_error(True, "c")
        for site, diff, scored, unscored, failed, sr, csr in self._conn.execute(
                "SELECT site, difficulty, SUM(value IS NOT NULL), "
                f"SUM(value IS NULL AND NOT {serr}), SUM(value IS NULL AND {serr}), "
                "AVG(CASE WHEN value IS NOT NULL THEN value >= 1.0 END), AVG(value) "
                "FROM current_scores c WHERE evaluator = ? AND err = 0 "
                "GROUP BY site, difficulty", (ev or "",)):
            row = counts.get((site or "-", diff or "-"))
            if row is not None:  # an evaluator error is an error (listing.states)
                row[1] += failed or 0
                row[2:] = [scored or 0, unscored or 0, sr, csr]
        return [Cell(group=g, n=r[0], errors=r[1], scored=r[2], unscored=r[3], sr=r[4],
                     csr=r[5]) for g, r in sorted(counts.items())]

    def _cells(self, ev: str | None, cols: tuple[str, ...]) -> list[Cell]:
        """Episodes that ended in an error, and scores that are evaluator errors, are counted
        as errors apart and left out of SR/CSR (`listing.states`)."""
        if cols == ("site", "difficulty") and self.has_summary:
            return self._summary_cells(ev)
        sel = ", ".join(f"COALESCE(t.{c}, '-')" for c in cols) if cols else "'all'"
        group = f" GROUP BY {sel} ORDER BY {sel}" if cols else ""
        state = states(score_error(self.has_summary, "c"))
        sql = (f"SELECT {sel}, COUNT(*), "
               f"SUM({state['error']}), "
               "SUM(t.error IS NULL AND c.value IS NOT NULL), "
               f"SUM({state['unscored']}), "
               "AVG(CASE WHEN t.error IS NULL AND c.value IS NOT NULL THEN c.value >= 1.0 END), "
               "AVG(CASE WHEN t.error IS NULL THEN c.value END) "
               f"FROM tv t{self._join('c')}{group}")
        width = max(len(cols), 1)
        return [Cell(group=tuple(str(x) for x in r[:width]), n=r[width],
                     errors=r[width + 1] or 0, scored=r[width + 2] or 0,
                     unscored=r[width + 3] or 0, sr=r[width + 4], csr=r[width + 5])
                for r in self._conn.execute(sql, (ev or "",))]

    def totals(self, ev: str | None) -> Cell:
        return self._cells(ev, ())[0]

    def by_site_difficulty(self, ev: str | None) -> list[Cell]:
        return self._cells(ev, ("site", "difficulty"))

    def by_constraint(self, ev: str | None) -> list[ConstraintRow]:
        """Satisfaction per constraint name over the current final judgements of `ev`,
        episodes that ended in an error left out: from the summary totals less the (few)
        error episodes' rows when the index keeps them, else from the typed
        `Score.constraints` in each stored body (SQLite's JSON functions)."""
        if ev is None:
            return []
        conn = self._conn
        if self.has_summary:
            counts = {name: [met, not_met, unknown] for name, met, not_met, unknown in
                      conn.execute("SELECT name, met, not_met, unknown FROM constraint_totals "
                                   "WHERE evaluator = ?", (ev,))}
            for name, m in conn.execute(
                    "SELECT name, matching FROM current_constraints WHERE evaluator = ? AND "
                    "traj IN (SELECT id FROM main.trajectories WHERE error IS NOT NULL)",
                    (ev,)):
                if name in counts:
                    counts[name][2 if m is None else 1 - m] -= 1
            raw = [(name, sum(c), *c) for name, c in counts.items()]
        else:
            raw = conn.execute(
                "SELECT json_extract(j.value, '$.name'), COUNT(*), "
                "SUM(json_extract(j.value, '$.matching') = 1), "
                "SUM(json_extract(j.value, '$.matching') = 0), "
                "SUM(json_extract(j.value, '$.matching') IS NULL) "
                f"FROM tv t{latest_join('c', 'JOIN')}, json_each(c.body, '$.constraints') j "
                "WHERE c.body IS NOT NULL AND t.error IS NULL GROUP BY 1", (ev,)).fetchall()
        rows = []
        for name, n, met, not_met, unknown in raw:
            if not n:
                continue
            decided = (met or 0) + (not_met or 0)
            rows.append(ConstraintRow(name=str(name), n=n, met=met or 0, not_met=not_met or 0,
                                      unknown=unknown or 0,
                                      rate=(met or 0) / decided if decided else None))
        rows.sort(key=lambda r: (r.rate if r.rate is not None else 2.0, r.name))
        return rows

    def step_curve(self, ev: str | None, *, site: str | None = None
                   ) -> list[tuple[int, float, int]]:
        """(step, mean value, episodes still running) of the current per-step values of
        `ev`, over the run or over one `site` ("-": trajectories without a site), episodes
        that ended in an error left out (as from every other table). The mean is over every
        episode with a curve: one that has finished counts with its final value from then on
        (carried forward), so the curve ends at the run's (the site's) final mean and a late
        step run by one episode is not that episode's value alone. This is the one
        definition of a step curve (docs/reference.md): every curve of report.html and the
        viewer is drawn from it."""
        if ev is None:
            return []
        conn = self._conn
        params: tuple[str, ...] = (ev,) if site is None else (ev, site)
        points = ("SELECT CAST(j.key AS INTEGER), SUM(j.value), COUNT(j.value) "
                  "{source_with_steps} GROUP BY 1 HAVING COUNT(j.value) > 0 ORDER BY 1")
        if self.has_summary:
            scores = "FROM current_scores c JOIN score_sets s ON s.id = c.score"
            where = (" WHERE c.evaluator = ? AND s.steps IS NOT NULL AND c.err = 0"
                     + ("" if site is None else " AND COALESCE(c.site, '-') = ?"))
            source = scores + where
            if site is None:
                # The summary's totals by step, less the (few) error episodes' values.
                errs = {k: (t, n) for k, t, n in conn.execute(points.format(
                    source_with_steps=f"{scores}, json_each(s.steps) j WHERE c.evaluator = ? "
                    "AND s.steps IS NOT NULL AND c.traj IN (SELECT id FROM main.trajectories "
                    "WHERE error IS NOT NULL)"), (ev,))}
                rows = []
                for k, total, n in conn.execute(
                        "SELECT step, total, n FROM step_totals WHERE evaluator = ? AND n > 0 "
                        "ORDER BY step", (ev,)):
                    et, en = errs.get(k, (0.0, 0))
                    if n - en > 0:
                        rows.append((k, total - et, n - en))
            else:
                rows = conn.execute(points.format(
                    source_with_steps=f"{scores}, json_each(s.steps) j{where}"),
                    params).fetchall()
        else:
            join = latest_join("s", "JOIN", " AND steps IS NOT NULL")
            where = " WHERE t.error IS NULL" + (
                "" if site is None else " AND COALESCE(t.site, '-') = ?")
            source = f"FROM tv t{join}{where}"
            rows = conn.execute(points.format(
                source_with_steps=f"FROM tv t{join}, json_each(s.steps) j{where}"),
                params).fetchall()
        # Episodes by the index of their last observation: the sum and count of final values.
        ends = sorted(conn.execute(
            "SELECT json_array_length(s.steps) - 1, SUM(json_extract(s.steps, '$[#-1]')), "
            f"COUNT(json_extract(s.steps, '$[#-1]')) {source} GROUP BY 1", params).fetchall())
        out = []
        carried_sum, carried_n, e = 0.0, 0, 0
        for k, total, n in rows:
            while e < len(ends) and ends[e][0] < k:
                carried_sum += ends[e][1] or 0.0
                carried_n += ends[e][2] or 0
                e += 1
            out.append((int(k), (float(total) + carried_sum) / (int(n) + carried_n), int(n)))
        return out

    def site_step_curves(self, ev: str | None) -> dict[str, list[tuple[int, float, int]]]:
        """`step_curve` of each site of the run ("-": trajectories without a site), in the
        sites' order; sites without a curve left out."""
        if ev is None:
            return {}
        sites = [r[0] for r in self._conn.execute(
            "SELECT DISTINCT COALESCE(site, '-') FROM tv ORDER BY 1")]
        curves = {site: self.step_curve(ev, site=site) for site in sites}
        return {site: curve for site, curve in curves.items() if curve}

    def judge_agreement(self, names: list[str]) -> list[Agreement]:
        """Success agreement (value == 1) between every two constraint judges on the episodes
        both scored."""
        out = []
        for a, b in _judge_pairs(names):
            both, agree = self._conn.execute(
                "SELECT COUNT(*), SUM((x.value >= 1.0) = (y.value >= 1.0)) FROM tv t"
                f"{self._join('x', 'JOIN')}{self._join('y', 'JOIN')} "
                "WHERE x.value IS NOT NULL AND y.value IS NOT NULL", (a, b)).fetchone()
            out.append(Agreement(a=a, b=b, both=both or 0, agree=agree or 0))
        return out

    def constraint_agreement(self, names: list[str]) -> list[ConstraintAgreement]:
        """Per constraint, agreement of every two constraint judges on their current final
        judgements of the same episodes (error episodes left out)."""
        if self.has_summary:
            name, xm, ym = "x.name", "x.matching", "y.matching"
            pair = ("FROM tv t JOIN current_constraints x ON x.evaluator = ? AND x.traj = t.id "
                    "JOIN current_constraints y ON y.evaluator = ? AND y.traj = t.id "
                    "AND y.name = x.name WHERE t.error IS NULL")
        else:
            name = "json_extract(jx.value, '$.name')"
            xm = "json_extract(jx.value, '$.matching')"
            ym = "json_extract(jy.value, '$.matching')"
            pair = (f"FROM tv t{latest_join('sx', 'JOIN')}{latest_join('sy', 'JOIN')}, "
                    "json_each(sx.body, '$.constraints') jx, "
                    "json_each(sy.body, '$.constraints') jy "
                    f"WHERE t.error IS NULL AND {name} = json_extract(jy.value, '$.name')")
        sql = ("SELECT c0, SUM(c1 IS NOT NULL AND c2 IS NOT NULL), SUM(c1 = c2), "
               "SUM(c1 IS NOT NULL AND c2 IS NULL), SUM(c1 IS NULL AND c2 IS NOT NULL) "
               f"FROM (SELECT {name} AS c0, {xm} AS c1, {ym} AS c2 {pair}) "
               "GROUP BY c0 ORDER BY c0")
        out = []
        for a, b in _judge_pairs(names):
            rows = self._conn.execute(sql, (a, b))
            out += [ConstraintAgreement(a=a, b=b, name=str(n), both=both or 0,
                                        agree=agree or 0, only_a=oa or 0, only_b=ob or 0)
                    for n, both, agree, oa, ob in rows]
        return out

    def task_outcomes(self, ev: str | None) -> dict[str, tuple[float, int]]:
        """task_id -> (mean value over its scored trials, trials scored), error episodes
        left out."""
        sql = (f"SELECT t.task_id, AVG(c.value), COUNT(c.value) FROM tv t"
               f"{self._join('c', 'JOIN')} WHERE t.error IS NULL AND c.value IS NOT NULL "
               "GROUP BY t.task_id")
        return {r[0]: (float(r[1]), int(r[2])) for r in self._conn.execute(sql, (ev or "",))}

    # --- metric counts (report.metrics) ---------------------------------------------------
    def _current(self) -> str:
        """The current score of each (evaluator, trajectory): evaluator, traj, value, err
        (the episode ended in an error), serr (the score is an evaluator error), hc (it
        carries constraint judgements), body."""
        if self._current_scores is None:
            self._current_scores = (
                "SELECT c.evaluator AS evaluator, c.traj AS traj, c.value AS value, "
                "c.err AS err, s.error AS serr, s.has_constraints AS hc, s.body AS body "
                "FROM current_scores c JOIN score_sets s ON s.id = c.score"
                if self.has_summary else
                "SELECT s.evaluator AS evaluator, s.traj AS traj, s.value AS value, "
                "t.error IS NOT NULL AS err, s.error AS serr, s.has_constraints AS hc, "
                "s.body AS body FROM score_sets s "
                "JOIN main.trajectories t ON t.id = s.traj WHERE s.id IN "
                "(SELECT MAX(id) FROM score_sets GROUP BY traj, evaluator)")
        return self._current_scores

    def episode_counts(self) -> tuple[int, int]:
        """(episodes, episodes that ended in an error)."""
        episodes, errors = self._conn.execute(
            "SELECT COUNT(*), SUM(error IS NOT NULL) FROM main.trajectories").fetchone()
        return episodes or 0, errors or 0

    def evaluator_counts(self) -> dict[str, ScoreCounts]:
        """Per evaluator with a stored score, the counts of its current scores: the one
        place they are counted (report.metrics, `runs show`'s evaluators, the viewer, the
        Eval harness through `evaluator_counts_by`)."""
        return {ev: counts for _, ev, counts in self._evaluator_counts(
            f"SELECT '', evaluator, {_COUNTS} FROM ({self._current()}) GROUP BY evaluator")}

    def evaluator_counts_by(self, groups: Mapping[str, str]
                            ) -> dict[str, dict[str, ScoreCounts]]:
        """group -> evaluator -> the counts of `evaluator_counts` over the trajectories
        `groups` names (trajectory id -> its group); the others are left out. The Eval
        harness's summary of its cases and its summaries by a metadata value."""
        conn = self._conn
        # The groups by trajectory row id, in a table of this connection alone (a read-only
        # index still has its own temporary tables): one seek per score.
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS count_groups "
                     "(traj INTEGER PRIMARY KEY, grp TEXT NOT NULL)")
        conn.execute("DELETE FROM temp.count_groups")
        try:
            conn.execute("INSERT INTO temp.count_groups SELECT t.id, j.value FROM "
                         "json_each(?) j JOIN main.trajectories t ON t.trajectory_id = j.key",
                         (orjson.dumps(dict(groups)).decode(),))
            out: dict[str, dict[str, ScoreCounts]] = {}
            for group, ev, counts in self._evaluator_counts(
                    f"SELECT grp, evaluator, {_COUNTS} FROM (SELECT g.grp AS grp, c.* FROM "
                    f"({self._current()}) c JOIN temp.count_groups g ON g.traj = c.traj) "
                    "GROUP BY grp, evaluator"):
                out.setdefault(group, {})[ev] = counts
            return out
        finally:
            conn.execute("DELETE FROM temp.count_groups")

    def _evaluator_counts(self, sql: str, params: tuple[str, ...] = ()
                          ) -> Iterator[tuple[str, str, ScoreCounts]]:
        for group, ev, n, errors, scored, unscored, success, total, hc in self._conn.execute(
                sql, params):
            yield group, ev, ScoreCounts(
                episodes=n, errors=errors or 0, scored=scored or 0, unscored=unscored or 0,
                success=success or 0, total=total or 0.0, with_constraints=hc or 0)

    def detail_total(self, evaluators: list[str], key: str) -> tuple[float, int]:
        """Sum and count of the numeric `details[key]` of the scored current scores of
        `evaluators` (a metric an evaluator reports in its details)."""
        marks = ",".join("?" * len(evaluators))
        row = self._conn.execute(
            "SELECT SUM(x), COUNT(x) FROM (SELECT CASE WHEN typeof(v) IN ('integer', 'real') "
            "THEN v END AS x FROM (SELECT json_extract(body, ?) AS v FROM "
            f"({self._current()}) WHERE evaluator IN ({marks}) AND NOT err "
            "AND value IS NOT NULL AND body IS NOT NULL))",
            [f'$.details."{key}"', *evaluators]).fetchone()
        return float(row[0] or 0.0), int(row[1] or 0)

    def all_pass_counts(self, evaluators: list[str]) -> ScoreCounts:
        """Per episode, every check of the group passed; an episode with an error among its
        checks is an error, one with an unscored check is unscored."""
        marks = ",".join("?" * len(evaluators))
        n, errors, unscored, scored, success = self._conn.execute(
            "SELECT COUNT(*), SUM(e), SUM(NOT e AND u > 0), SUM(NOT e AND u = 0), "
            "SUM(NOT e AND u = 0 AND p = k) FROM (SELECT MAX(err OR (value IS NULL AND serr)) "
            "AS e, SUM(value IS NULL AND NOT serr) AS u, SUM(value >= 1.0) AS p, COUNT(*) AS k "
            f"FROM ({self._current()}) WHERE evaluator IN ({marks}) GROUP BY traj)",
            evaluators).fetchone()
        return ScoreCounts(episodes=n or 0, errors=errors or 0, scored=scored or 0,
                           unscored=unscored or 0, success=success or 0)

    def current_usage(self) -> dict[str, dict[str, Usage]]:
        """trajectory id -> evaluator -> the model use its current score cost (`usage` of the
        score; `details.llm_usage` in scores stored before that field)."""
        out: dict[str, dict[str, Usage]] = {}
        for tid, ev, raw in self._conn.execute(
                "SELECT t.trajectory_id, s.evaluator, json_quote(COALESCE("
                "json_extract(s.body, '$.usage'), json_extract(s.body, '$.details.llm_usage'))) "
                "FROM score_sets s JOIN main.trajectories t ON t.id = s.traj WHERE s.id IN "
                "(SELECT MAX(id) FROM score_sets GROUP BY traj, evaluator) "
                "AND s.body IS NOT NULL AND (json_extract(s.body, '$.usage') IS NOT NULL "
                "OR json_extract(s.body, '$.details.llm_usage') IS NOT NULL)"):
            data = orjson.loads(raw)
            try:
                usage = (Usage.from_run_usage(data) if "total" in data
                         else Usage.model_validate(data))
            except (ValueError, ValidationError):
                continue  # a damaged body: no usage rather than a wrong one
            if usage.models:
                out.setdefault(tid, {})[ev] = usage
        return out

    # --- trajectories ---------------------------------------------------------------------
    def trajectory_rows(self, *, scores: bool = False) -> list[TrajectoryRow]:
        """Every trajectory of the run, in the order it was indexed; with `scores`, each
        with its evaluators' current values: None for every evaluator of an episode that
        ended in an error, whatever an older version stored (the one place this rule is
        applied to a listing)."""
        latest = self.current_values() if scores else {}
        out = []
        for r in self._conn.execute(f"SELECT {ROW_COLS} FROM main.trajectories ORDER BY id"):
            values = ({ev: None if r[8] else v.value for ev, v in latest.get(r[0], {}).items()}
                      if scores else None)
            out.append(TrajectoryRow.from_columns(r, values))
        return out

    def current_values(self) -> dict[int, dict[str, LatestScore]]:
        """trajectory rowid -> evaluator -> its current score's value, error flag and
        whether it has constraint judgements; evaluators in the order they first scored
        the trajectory."""
        out: dict[int, dict[str, LatestScore]] = {}
        for traj, ev, value, err, hc in self._conn.execute(
                "SELECT s.traj, s.evaluator, s.value, s.error, s.has_constraints FROM "
                "(SELECT MIN(id) AS first, MAX(id) AS last FROM score_sets "
                "GROUP BY traj, evaluator) g JOIN score_sets s ON s.id = g.last "
                "ORDER BY g.first"):
            out.setdefault(traj, {})[ev] = LatestScore(value, bool(err), bool(hc))
        return out

    def trajectory_page(self, ev: str | None, query: ListQuery
                        ) -> tuple[list[TrajectoryRow], int]:
        """One page of the viewer's list (store.listing) and how many rows match."""
        return trajectory_page(self._conn, self.has_summary, ev, query)

    def unscored_reasons(self) -> dict[str, list[UnscoredReason]]:
        """trajectory id -> each newest score that is unscored."""
        out: dict[str, list[UnscoredReason]] = {}
        for tid, ev, reason, err in self._conn.execute(
                "SELECT t.trajectory_id, s.evaluator, s.reason, s.error FROM score_sets s "
                "JOIN tv t ON t.id = s.traj WHERE s.id IN (SELECT MAX(id) FROM score_sets "
                "GROUP BY traj, evaluator) AND s.value IS NULL ORDER BY t.id, s.evaluator"):
            out.setdefault(tid, []).append(
                UnscoredReason(evaluator=ev, reason=reason or "", error=bool(err)))
        return out

    def distinct(self, col: str) -> list[str]:
        """The values of `site` or `difficulty` in the run."""
        if col not in ("site", "difficulty"):
            raise ValueError(f"no list of {col!r}; choose site or difficulty")
        return [r[0] for r in self._conn.execute(
            f"SELECT DISTINCT {col} FROM tv WHERE {col} IS NOT NULL ORDER BY 1")]

    def scores_of(self, trajectory_id: str) -> list[Score]:
        """The newest score of every evaluator for one trajectory (one that cannot be read
        stands as an unscored error saying why)."""
        rows = self._conn.execute(
            "SELECT s.evaluator, s.value, s.reason, s.error, s.steps, s.body FROM score_sets s "
            "JOIN tv t ON t.id = s.traj WHERE t.trajectory_id = ? ORDER BY s.id",
            (trajectory_id,)).fetchall()
        latest = {r[0]: r for r in rows}
        out = []
        for r in latest.values():
            try:
                out.append(score_from_row(*r))
            except ValueError as exc:
                out.append(Score.unscored(r[0], f"stored score cannot be read: {exc}",
                                          error=True))
        return out

    def decisions(self, trajectory_id: str) -> list[CurationDecision]:
        """Every curated dataset's decision for one trajectory, newest curation first."""
        return decisions_of(self._conn, trajectory_id)

    def trajectories_of_task(self, task_id: str) -> list[str]:
        return [r[0] for r in self._conn.execute(
            "SELECT trajectory_id FROM tv WHERE task_id = ? ORDER BY trial, id", (task_id,))]

    def first_agent(self) -> str | None:
        r = self._conn.execute("SELECT agent FROM tv LIMIT 1").fetchone()
        return r[0] if r else None


__all__ = ["Agreement", "Cell", "ConstraintAgreement", "ConstraintRow", "DatabaseError",
           "IndexReader", "LatestScore", "ListQuery", "SQLiteError", "ScoreCounts",
           "TrajectoryRow", "UnscoredReason", "total_of"]
