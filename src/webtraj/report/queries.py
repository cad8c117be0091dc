"""SQL over one run's index.sqlite, read-only: the viewer and report never load all trajectories;
every table and page of the list is one query (the trajectory list is paged in SQLite)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson
from pydantic import BaseModel

from webtraj.evaluate.metrics import family_of
from webtraj.model.ordering import natural_text
from webtraj.model.score import Score
from webtraj.store import search, summary
from webtraj.store.index import score_from_row
from webtraj.store.reader import connect_ro

PAGE_SIZE = 50
COUNT_CAP = 5_000
SORTS = {"id": "t.trajectory_id", "task": "t.task_id", "steps": "t.n_steps", "csr": "c.value",
         "site": "t.site"}
# Text columns in the natural order (`t2` before `t10`) when the list is no longer than
# NATURAL_LIMIT: the key is computed in Python once per row, about 10 us each.
NATURAL_SORTS = {k: f"natural_text({v})" for k, v in SORTS.items() if k in ("id", "task", "site")}
NATURAL_LIMIT = 50_000


def open_index(root: Path) -> sqlite3.Connection:
    """A read-only connection; an index written before `intent`/`answer` existed reads as
    if those were empty."""
    conn = connect_ro(root)
    conn.create_function("natural_text", 1, natural_text, deterministic=True)
    cols = {r[1] for r in conn.execute("PRAGMA table_info(trajectories)")}
    if "intent" not in cols:
        conn.execute("CREATE TEMP VIEW tv AS SELECT *, NULL AS intent, NULL AS answer "
                      "FROM main.trajectories")
    else:
        conn.execute("CREATE TEMP VIEW tv AS SELECT * FROM main.trajectories")
    # Checked once per connection (it counts the score rows).
    conn.execute("CREATE TEMP TABLE summary_ok AS SELECT ? AS ok", (summary.current(conn),))
    return conn


def has_summary(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps summary tables that describe its scores exactly (schema 2;
    see store.summary); else the tables are computed from every stored score."""
    try:
        return bool(conn.execute("SELECT ok FROM temp.summary_ok").fetchone()[0])
    except sqlite3.OperationalError:
        return summary.current(conn)


def evaluators(conn: sqlite3.Connection) -> list[str]:
    """Evaluator names with a stored score (from the summary's primary key when the index
    has it: score_sets rows carry every per-step value and are slow to scan)."""
    if has_summary(conn):  # one seek per name along the primary key
        sql = ("WITH RECURSIVE e(x) AS (SELECT MIN(evaluator) FROM current_scores UNION ALL "
               "SELECT (SELECT MIN(evaluator) FROM current_scores WHERE evaluator > x) FROM e "
               "WHERE x IS NOT NULL) SELECT x FROM e WHERE x IS NOT NULL")
    else:
        sql = "SELECT DISTINCT evaluator FROM score_sets ORDER BY evaluator"
    return [r[0] for r in conn.execute(sql)]


def csr_evaluator(names: list[str]) -> str | None:
    """The run's headline evaluator, whose scores the trajectory list, the site table and the
    per-step curve show: of the family ranked first (constraints, the oracle first; then
    MiniWoB++, WebArena-Verified, outcome judges, any other), the preferred instance."""
    if not names:
        return None

    def rank(name: str) -> tuple:
        family = family_of(name)
        return family.order, name != family.preferred, name

    return min(names, key=rank)


def _current_join(conn: sqlite3.Connection, alias: str, kind: str = "LEFT JOIN") -> str:
    """Join each trajectory `t` to its current score of one evaluator (the `?`): from the
    summary table when the index has it (value only), else from score_sets."""
    if has_summary(conn):
        return (f" {kind} current_scores {alias} ON {alias}.evaluator = ? "
                f"AND {alias}.traj = t.id")
    return _latest(alias, kind)


def _latest(alias: str, kind: str = "LEFT JOIN", extra: str = "") -> str:
    """Join each trajectory `t` to its newest score of one evaluator (the `?`): one index
    seek per trajectory on score_sets(traj, evaluator), whose last column is the row id."""
    return (f" {kind} score_sets {alias} ON {alias}.id = (SELECT MAX(id) FROM score_sets "
            f"WHERE traj = t.id AND evaluator = ?{extra})")


class Cell(BaseModel):
    group: tuple[str, ...]
    n: int
    errors: int
    scored: int
    unscored: int
    sr: float | None
    csr: float | None


def _summary_cells(conn: sqlite3.Connection, ev: str | None) -> list[Cell]:
    """Site x difficulty cells from two index-only scans: trajectory counts by cell, and the
    current scores of `ev` by cell (summary tables)."""
    counts: dict[tuple[str, str], list] = {}
    for site, diff, err, n in conn.execute(
            "SELECT site, difficulty, error IS NOT NULL, COUNT(*) FROM tv "
            "GROUP BY site, difficulty, error IS NOT NULL"):
        row = counts.setdefault((site or "-", diff or "-"), [0, 0, 0, 0, None, None])
        row[0] += n
        row[1] += n if err else 0
    for site, diff, scored, unscored, sr, csr in conn.execute(
            "SELECT site, difficulty, SUM(value IS NOT NULL), SUM(value IS NULL), "
            "AVG(CASE WHEN value IS NOT NULL THEN value >= 1.0 END), AVG(value) "
            "FROM current_scores WHERE evaluator = ? AND err = 0 GROUP BY site, difficulty",
            (ev or "",)):
        row = counts.get((site or "-", diff or "-"))
        if row is not None:
            row[2:] = [scored or 0, unscored or 0, sr, csr]
    return [Cell(group=g, n=r[0], errors=r[1], scored=r[2], unscored=r[3], sr=r[4], csr=r[5])
            for g, r in sorted(counts.items())]


def _cells(conn: sqlite3.Connection, ev: str | None, cols: tuple[str, ...]) -> list[Cell]:
    """Episodes that ended in an error are counted apart and left out of SR/CSR."""
    if cols == ("site", "difficulty") and has_summary(conn):
        return _summary_cells(conn, ev)
    sel = ", ".join(f"COALESCE(t.{c}, '-')" for c in cols) if cols else "'all'"
    group = f" GROUP BY {sel} ORDER BY {sel}" if cols else ""
    sql = (f"SELECT {sel}, COUNT(*), "
           "SUM(t.error IS NOT NULL), "
           "SUM(t.error IS NULL AND c.value IS NOT NULL), "
           "SUM(t.error IS NULL AND c.traj IS NOT NULL AND c.value IS NULL), "
           "AVG(CASE WHEN t.error IS NULL AND c.value IS NOT NULL THEN c.value >= 1.0 END), "
           "AVG(CASE WHEN t.error IS NULL THEN c.value END) "
           f"FROM tv t{_current_join(conn, 'c')}{group}")
    width = max(len(cols), 1)
    return [Cell(group=tuple(str(x) for x in r[:width]), n=r[width], errors=r[width + 1] or 0,
                 scored=r[width + 2] or 0, unscored=r[width + 3] or 0, sr=r[width + 4],
                 csr=r[width + 5])
            for r in conn.execute(sql, (ev or "",))]


def totals(conn: sqlite3.Connection, ev: str | None) -> Cell:
    return _cells(conn, ev, ())[0]


def by_site_difficulty(conn: sqlite3.Connection, ev: str | None) -> list[Cell]:
    return _cells(conn, ev, ("site", "difficulty"))


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


def by_constraint(conn: sqlite3.Connection, ev: str | None) -> list[ConstraintRow]:
    """Satisfaction per constraint name over the current final judgements of `ev`, episodes
    that ended in an error left out: from the summary totals less the (few) error episodes'
    rows when the index keeps them, else from the typed `Score.constraints` in each stored
    body (SQLite's JSON functions)."""
    if ev is None:
        return []
    if has_summary(conn):
        counts = {name: [met, not_met, unknown] for name, met, not_met, unknown in
                  conn.execute("SELECT name, met, not_met, unknown FROM constraint_totals "
                               "WHERE evaluator = ?", (ev,))}
        for name, m in conn.execute(
                "SELECT name, matching FROM current_constraints WHERE evaluator = ? AND traj IN "
                "(SELECT id FROM main.trajectories WHERE error IS NOT NULL)", (ev,)):
            if name in counts:
                counts[name][2 if m is None else 1 - m] -= 1
        raw = [(name, sum(c), *c) for name, c in counts.items()]
    else:
        raw = conn.execute(
            "SELECT json_extract(j.value, '$.name'), COUNT(*), "
            "SUM(json_extract(j.value, '$.matching') = 1), "
            "SUM(json_extract(j.value, '$.matching') = 0), "
            "SUM(json_extract(j.value, '$.matching') IS NULL) "
            f"FROM tv t{_latest('c', 'JOIN')}, json_each(c.body, '$.constraints') j "
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


def step_curve(conn: sqlite3.Connection, ev: str | None) -> list[tuple[int, float, int]]:
    """(step, mean value, episodes still running) of the current per-step values of `ev`.
    The mean is over every episode with a curve: one that has finished counts with its
    final value from then on (carried forward), so the curve ends at the run's final mean
    and a late step run by one episode is not that episode's value alone."""
    if ev is None:
        return []
    if has_summary(conn):
        rows = conn.execute("SELECT step, total, n FROM step_totals WHERE evaluator = ? "
                            "AND n > 0 ORDER BY step", (ev,)).fetchall()
        source = ("FROM current_scores c JOIN score_sets s ON s.id = c.score "
                  "WHERE c.evaluator = ? AND s.steps IS NOT NULL")
    else:
        rows = conn.execute(
            "SELECT CAST(j.key AS INTEGER), SUM(j.value), COUNT(j.value) FROM tv t"
            f"{_latest('s', 'JOIN', ' AND steps IS NOT NULL')}, json_each(s.steps) j "
            "GROUP BY 1 HAVING COUNT(j.value) > 0 ORDER BY 1", (ev,)).fetchall()
        source = f"FROM tv t{_latest('s', 'JOIN', ' AND steps IS NOT NULL')}"
    # Episodes by the index of their last observation: the sum and count of final values.
    ends = sorted(conn.execute(
        "SELECT json_array_length(s.steps) - 1, SUM(json_extract(s.steps, '$[#-1]')), "
        f"COUNT(json_extract(s.steps, '$[#-1]')) {source} GROUP BY 1", (ev,)).fetchall())
    out = []
    carried_sum, carried_n, e = 0.0, 0, 0
    for k, total, n in rows:
        while e < len(ends) and ends[e][0] < k:
            carried_sum += ends[e][1] or 0.0
            carried_n += ends[e][2] or 0
            e += 1
        out.append((int(k), (float(total) + carried_sum) / (int(n) + carried_n), int(n)))
    return out


class Agreement(BaseModel):
    a: str
    b: str
    both: int
    agree: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.both if self.both else None


def _judge_pairs(names: list[str]) -> list[tuple[str, str]]:
    judges = [n for n in names if n.startswith("constraints")]
    return [(a, b) for i, a in enumerate(judges) for b in judges[i + 1:]]


def judge_agreement(conn: sqlite3.Connection, names: list[str]) -> list[Agreement]:
    """Success agreement (value == 1) between every two constraint judges on the episodes
    both scored."""
    out = []
    for a, b in _judge_pairs(names):
        both, agree = conn.execute(
            "SELECT COUNT(*), SUM((x.value >= 1.0) = (y.value >= 1.0)) FROM tv t"
            f"{_current_join(conn, 'x', 'JOIN')}{_current_join(conn, 'y', 'JOIN')} "
            "WHERE x.value IS NOT NULL AND y.value IS NOT NULL", (a, b)).fetchone()
        out.append(Agreement(a=a, b=b, both=both or 0, agree=agree or 0))
    return out


class ConstraintAgreement(Agreement):
    """Two judges on one constraint: of the final judgements both decided (met or not met),
    how many agree; `only_a` / `only_b`: decided by one judge, unknown to the other."""

    name: str
    only_a: int = 0
    only_b: int = 0


def constraint_agreement(conn: sqlite3.Connection, names: list[str]
                         ) -> list[ConstraintAgreement]:
    """Per constraint, agreement of every two constraint judges on their current final
    judgements of the same episodes (error episodes left out)."""
    if has_summary(conn):
        name, xm, ym = "x.name", "x.matching", "y.matching"
        pair = ("FROM tv t JOIN current_constraints x ON x.evaluator = ? AND x.traj = t.id "
                "JOIN current_constraints y ON y.evaluator = ? AND y.traj = t.id "
                "AND y.name = x.name WHERE t.error IS NULL")
    else:
        name = "json_extract(jx.value, '$.name')"
        xm, ym = "json_extract(jx.value, '$.matching')", "json_extract(jy.value, '$.matching')"
        pair = (f"FROM tv t{_latest('sx', 'JOIN')}{_latest('sy', 'JOIN')}, "
                "json_each(sx.body, '$.constraints') jx, json_each(sy.body, '$.constraints') jy "
                f"WHERE t.error IS NULL AND {name} = json_extract(jy.value, '$.name')")
    sql = ("SELECT c0, SUM(c1 IS NOT NULL AND c2 IS NOT NULL), SUM(c1 = c2), "
           "SUM(c1 IS NOT NULL AND c2 IS NULL), SUM(c1 IS NULL AND c2 IS NOT NULL) "
           f"FROM (SELECT {name} AS c0, {xm} AS c1, {ym} AS c2 {pair}) "
           "GROUP BY c0 ORDER BY c0")
    out = []
    for a, b in _judge_pairs(names):
        rows = conn.execute(sql, (a, b))
        out += [ConstraintAgreement(a=a, b=b, name=str(n), both=both or 0, agree=agree or 0,
                                    only_a=oa or 0, only_b=ob or 0)
                for n, both, agree, oa, ob in rows]
    return out


@dataclass
class ListQuery:
    """Filters, search, sort and page of the trajectory list (all optional)."""

    site: str | None = None
    difficulty: str | None = None
    success: str | None = None  # "yes" / "no"
    error: str | None = None  # "yes" / "no"
    unscored: bool = False
    q: str | None = None
    sort: str = "id"
    desc: bool = False
    page: int = 1
    extra: dict[str, str] = field(default_factory=dict)
    # The search as an FTS5 phrase, when the index has the search table (set by
    # trajectory_page); else the search scans with LIKE.
    fts: str | None = None

    @property
    def needs_scores(self) -> bool:
        """Whether the filter or the order reads the score (else paging comes first)."""
        return bool(self.success or self.unscored or self.sort == "csr")

    def where(self) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        for col in ("site", "difficulty"):
            val = getattr(self, col)
            if val:
                clauses.append(f"t.{col} = ?")
                params.append(val)
        if self.success == "yes":
            clauses.append("c.value >= 1.0")
        elif self.success == "no":
            clauses.append("c.value < 1.0")
        if self.error == "yes":
            clauses.append("t.error IS NOT NULL")
        elif self.error == "no":
            clauses.append("t.error IS NULL")
        if self.unscored:
            clauses.append("c.traj IS NOT NULL AND c.value IS NULL")
        if self.q and self.fts:
            clauses.append("t.id IN (SELECT rowid FROM trajectory_text WHERE "
                           "trajectory_text MATCH ?)")
            params.append(self.fts)
        elif self.q:
            like = "%" + self.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            clauses.append("(t.intent LIKE ? ESCAPE '\\' OR t.answer LIKE ? ESCAPE '\\' "
                           "OR t.task_id LIKE ? ESCAPE '\\')")
            params += [like, like, like]
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


class ListRow(BaseModel):
    trajectory_id: str
    task_id: str
    site: str | None
    difficulty: str | None
    n_steps: int
    error: str | None
    termination: str | None
    intent: str | None
    answer: str | None
    csr: float | None
    unscored_reason: str | None


def _order(sort: str, total: int) -> str:
    """The ORDER BY expression: natural for text columns up to NATURAL_LIMIT rows, by
    characters above."""
    if total <= NATURAL_LIMIT and sort in NATURAL_SORTS:
        return NATURAL_SORTS[sort]
    return SORTS.get(sort, "t.trajectory_id")


def trajectory_page(conn: sqlite3.Connection, ev: str | None, query: ListQuery
                    ) -> tuple[list[ListRow], int]:
    """One page of the filtered, searched, sorted list, and how many rows match (more than
    COUNT_CAP when a filter on scores matches more than that)."""
    if query.q and has_summary(conn):
        query = replace(query, fts=search.phrase(query.q))
    where, params = query.where()
    direction = "DESC" if query.desc else "ASC"
    offset = (max(query.page, 1) - 1) * PAGE_SIZE
    # The unscored reason is in score_sets: with the summary tables, c is the current score
    # (value only) and cs its row.
    reason = ("(SELECT reason FROM score_sets cs WHERE cs.id = c.score)"
              if has_summary(conn) else "c.reason")
    # An episode that ended in an error shows no score, whatever an older version stored.
    cols = ("t.trajectory_id, t.task_id, t.site, t.difficulty, t.n_steps, t.error, "
            "t.termination, t.intent, t.answer, CASE WHEN t.error IS NULL THEN c.value END, "
            f"{reason}")
    if query.needs_scores:
        # A filter on scores keeps only scored rows, so an inner join loses nothing; CROSS
        # JOIN keeps SQLite from driving the query from every current score of the run
        # (it walks the trajectories matching the other filters instead).
        inner = bool(query.success or query.unscored) and has_summary(conn)
        join = _current_join(conn, "c", "CROSS JOIN" if inner else "LEFT JOIN")
        base = f"FROM tv t{join}{where}"
        args = [ev or "", *params]
        # Counting a filter on scores reads each trajectory's score row: stop at COUNT_CAP
        # (the page shows "COUNT_CAP+ matching" and pages on while rows come).
        if query.success or query.unscored:
            total = conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 {base} LIMIT ?)",
                                 [*args, COUNT_CAP + 1]).fetchone()[0]
        else:  # only the order reads scores
            total = conn.execute(f"SELECT COUNT(*) FROM tv t{where}", params).fetchone()[0]
        # A capped count may stand for many more rows: no natural order then.
        order = _order(query.sort, total if total <= COUNT_CAP else NATURAL_LIMIT + 1)
        sql = (f"SELECT {cols} {base} ORDER BY {order} {direction}, t.id {direction} "
               "LIMIT ? OFFSET ?")
        args = [*args, PAGE_SIZE, offset]
    else:
        # Filters and order on trajectory columns only: page first, then look up the scores
        # of that page's rows (a page costs 50 seeks, not one per trajectory).
        total = conn.execute(f"SELECT COUNT(*) FROM tv t{where}", params).fetchone()[0]
        order = _order(query.sort, total)
        sql = (f"SELECT {cols} FROM (SELECT * FROM tv t{where} ORDER BY {order} {direction}, "
               f"t.id {direction} LIMIT ? OFFSET ?) t{_current_join(conn, 'c')} "
               f"ORDER BY {order} {direction}, t.id {direction}")
        args = [*params, PAGE_SIZE, offset, ev or ""]
    rows = [ListRow(trajectory_id=r[0], task_id=r[1], site=r[2], difficulty=r[3],
                    n_steps=r[4], error=r[5], termination=r[6], intent=r[7], answer=r[8],
                    csr=r[9], unscored_reason=r[10] if r[9] is None else None)
            for r in conn.execute(sql, args)]
    return rows, total


def unscored_reasons(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str, bool]]]:
    """trajectory id -> (evaluator, reason, error) of each newest score that is unscored."""
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for tid, ev, reason, err in conn.execute(
            "SELECT t.trajectory_id, s.evaluator, s.reason, s.error FROM score_sets s "
            "JOIN tv t ON t.id = s.traj WHERE s.id IN (SELECT MAX(id) FROM score_sets "
            "GROUP BY traj, evaluator) AND s.value IS NULL ORDER BY t.id, s.evaluator"):
        out.setdefault(tid, []).append((ev, reason or "", bool(err)))
    return out


def distinct(conn: sqlite3.Connection, col: str) -> list[str]:
    assert col in ("site", "difficulty")
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT {col} FROM tv WHERE {col} IS NOT NULL ORDER BY 1")]


def scores_of(conn: sqlite3.Connection, trajectory_id: str) -> list[Score]:
    """The newest score of every evaluator for one trajectory."""
    rows = conn.execute(
        "SELECT s.evaluator, s.value, s.reason, s.error, s.steps, s.body FROM score_sets s "
        "JOIN tv t ON t.id = s.traj WHERE t.trajectory_id = ? ORDER BY s.id",
        (trajectory_id,)).fetchall()
    latest = {r[0]: r for r in rows}
    out = []
    for r in latest.values():
        try:
            out.append(score_from_row(*r))
        except ValueError as exc:
            out.append(Score.unscored(r[0], f"stored score cannot be read: {exc}", error=True))
    return out


def task_outcomes(conn: sqlite3.Connection, ev: str | None) -> dict[str, tuple[float, int]]:
    """task_id -> (mean CSR over its scored trials, trials scored), error episodes left out."""
    join = _current_join(conn, "c", "JOIN")
    sql = (f"SELECT t.task_id, AVG(c.value), COUNT(c.value) FROM tv t{join} "
           "WHERE t.error IS NULL AND c.value IS NOT NULL GROUP BY t.task_id")
    return {r[0]: (float(r[1]), int(r[2])) for r in conn.execute(sql, (ev or "",))}


def trajectories_of_task(conn: sqlite3.Connection, task_id: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT trajectory_id FROM tv WHERE task_id = ? ORDER BY trial, id", (task_id,))]


def first_agent(conn: sqlite3.Connection) -> str | None:
    r = conn.execute("SELECT agent FROM tv LIMIT 1").fetchone()
    return r[0] if r else None


def loads(data: bytes) -> object:
    return orjson.loads(data)
