"""The viewer's trajectory list over a run's index: filters, search, sort and one page, paged
in SQLite (a page of a run of a million trajectories reads 50 rows, not the run). Read
through `IndexReader.trajectory_page`."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace

from webtraj.store import search
from webtraj.store.rows import TrajectoryRow
from webtraj.store.summary_tables import current_join, score_error

PAGE_SIZE = 50
COUNT_CAP = 5_000
SORTS = {"id": "t.trajectory_id", "task": "t.task_id", "steps": "t.n_steps", "csr": "c.value",
         "site": "t.site"}
# Text columns in the natural order (`t2` before `t10`) when the list is no longer than
# NATURAL_LIMIT: the key is computed in Python once per row, about 10 us each.
NATURAL_SORTS = {k: f"natural_text({v})" for k, v in SORTS.items() if k in ("id", "task", "site")}
NATURAL_LIMIT = 50_000


# The values each choice filter takes (the viewer answers any other value with a 400).
CHOICES = {"success": ("yes", "no"), "error": ("yes", "no"), "unscored": ("1",),
           "desc": ("1",)}


def states(serr: str) -> dict[str, str]:
    """What each state means for a trajectory `t` and its current score `c` (`serr`: the
    score is an evaluator error), as the metrics count them (store.queries.ScoreCounts): an
    episode that ended in an error, or whose score is an evaluator error, is an *error*; a
    score the evaluator could not decide is *unscored*; an error has no value."""
    return {
        "error": f"(t.error IS NOT NULL OR (c.traj IS NOT NULL AND c.value IS NULL AND {serr}))",
        "unscored": f"(t.error IS NULL AND c.traj IS NOT NULL AND c.value IS NULL "
                    f"AND NOT {serr})",
        "success": "(t.error IS NULL AND c.value >= 1.0)",
        "failure": "(t.error IS NULL AND c.value < 1.0)",
    }


@dataclass
class ListQuery:
    """Filters, search, sort and page of the trajectory list (all optional)."""

    site: str | None = None
    difficulty: str | None = None
    success: str | None = None  # "yes" / "no"
    error: str | None = None  # "yes" / "no": counted as an error (`states`)
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
        return bool(self.filters_scores or self.sort == "csr")

    @property
    def filters_scores(self) -> bool:
        """Whether a filter reads the score (an error may be the score's)."""
        return bool(self.success or self.unscored or self.error)

    def where(self, serr: str = "0") -> tuple[str, list[object]]:
        """The WHERE clause; `serr`: SQL true when the current score `c` is an evaluator
        error (`summary_tables.score_error`)."""
        state = states(serr)
        clauses: list[str] = []
        params: list[object] = []
        for col in ("site", "difficulty"):
            val = getattr(self, col)
            if val:
                clauses.append(f"t.{col} = ?")
                params.append(val)
        if self.success == "yes":
            clauses.append(state["success"])
        elif self.success == "no":
            clauses.append(state["failure"])
        if self.error == "yes":
            clauses.append(state["error"])
        elif self.error == "no":
            clauses.append(f"NOT {state['error']}")
        if self.unscored:
            clauses.append(state["unscored"])
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


def _order(sort: str, total: int) -> str:
    """The ORDER BY expression: natural for text columns up to NATURAL_LIMIT rows, by
    characters above."""
    if total <= NATURAL_LIMIT and sort in NATURAL_SORTS:
        return NATURAL_SORTS[sort]
    return SORTS.get(sort, "t.trajectory_id")


def trajectory_page(conn: sqlite3.Connection, has_summary: bool, ev: str | None,
                    query: ListQuery) -> tuple[list[TrajectoryRow], int]:
    """One page of the filtered, searched, sorted list, and how many rows match (more than
    COUNT_CAP when a filter on scores matches more than that). `conn` reads the index
    through the `tv` view of `IndexReader`."""
    if query.q and has_summary:
        query = replace(query, fts=search.phrase(query.q))
    where, params = query.where(score_error(has_summary, "c"))
    direction = "DESC" if query.desc else "ASC"
    offset = (max(query.page, 1) - 1) * PAGE_SIZE
    # The unscored reason is in score_sets: with the summary tables, c is the current score
    # (value only) and cs its row.
    reason = ("(SELECT reason FROM score_sets cs WHERE cs.id = c.score)"
              if has_summary else "c.reason")
    # An episode that ended in an error shows no score, whatever an older version stored.
    cols = ("t.trajectory_id, t.task_id, t.site, t.difficulty, t.n_steps, t.error, "
            "t.termination, t.intent, t.answer, CASE WHEN t.error IS NULL THEN c.value END, "
            f"{reason}, CASE WHEN c.value IS NULL THEN {score_error(has_summary, 'c')} END, "
            "t.agent, t.trial")
    if query.needs_scores:
        # A filter on scores keeps only scored rows, so an inner join loses nothing; CROSS
        # JOIN keeps SQLite from driving the query from every current score of the run
        # (it walks the trajectories matching the other filters instead).
        inner = bool(query.success or query.unscored) and has_summary
        join = current_join(has_summary, "c", "CROSS JOIN" if inner else "LEFT JOIN")
        base = f"FROM tv t{join}{where}"
        args = [ev or "", *params]
        # Counting a filter on scores reads each trajectory's score row: stop at COUNT_CAP
        # (the page shows "COUNT_CAP+ matching" and pages on while rows come).
        if query.filters_scores:
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
               f"t.id {direction} LIMIT ? OFFSET ?) t{current_join(has_summary, 'c')} "
               f"ORDER BY {order} {direction}, t.id {direction}")
        args = [*params, PAGE_SIZE, offset, ev or ""]
    rows = [TrajectoryRow(trajectory_id=r[0], task_id=r[1], site=r[2], difficulty=r[3],
                          n_steps=r[4], error=r[5], termination=r[6], intent=r[7],
                          answer=r[8], csr=r[9],
                          unscored_reason=r[10] if r[9] is None else None,
                          score_error=bool(r[11]), agent=r[12], trial=r[13])
            for r in conn.execute(sql, args)]
    return rows, total
