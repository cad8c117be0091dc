"""Builders for viewer tests: small runs written through the store API, one of them carrying
XSS payloads in every text field and in a file name."""

from __future__ import annotations

import sqlite3
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

from webtraj.evaluate.constraints.csr import ObservationCSR, trajectory_score
from webtraj.model import (
    Action,
    ActionKind,
    Constraint,
    ConstraintCheck,
    ConstraintType,
    Observation,
    RunInfo,
    Score,
    Step,
    Task,
    Trajectory,
)
from webtraj.store import RunStore

XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>'
CONSTRAINTS = (
    Constraint(name="location", value="Lisbon", type=ConstraintType.LOCATION),
    Constraint(name="adults", value=3, type=ConstraintType.NUMBER),
    Constraint(name="pool", value=True, type=ConstraintType.BOOLEAN),
)


def png(width: int = 400, height: int = 300) -> bytes:
    """A valid grey PNG, so the screenshot route has a real image to serve."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    raw = b"".join(b"\x00" + b"\xcc" * (width * 3) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


PNG = png()


def task(i: int, *, site: str = "hotels", difficulty: str = "easy", intent: str = "") -> Task:
    return Task(task_id=f"{site}-{i:03d}", site=site, difficulty=difficulty,
                intent=intent or f"Find a cabin in Lisbon number {i}",
                start_url="http://127.0.0.1:8001/", constraints=CONSTRAINTS)


def traj(t: Task, actions: Sequence[str], *, agent: str = "heuristic", reasoning: str = "",
         url: str = "http://127.0.0.1:8001/p", tree: str = "", shot: str | None = None,
         answer: str | None = None, error: str | None = None) -> Trajectory:
    steps = []
    for i, elem in enumerate(actions):
        action = (Action(kind=ActionKind.STOP, value=answer or "") if elem == "stop"
                  else Action(kind=ActionKind.CLICK, element_id=elem))
        steps.append(Step(index=i, observation=Observation(
            url=url if i else "http://127.0.0.1:8001/", screenshot=shot,
            axtree=(tree or f"[{elem}] [button] [Option {elem}]") + f"\n[99] [link] [Other {i}]"),
            action=action, reasoning=reasoning or f"reason {i}", duration_s=0.5))
    return Trajectory(trajectory_id=Trajectory.make_id(t.task_id, agent, 0), task=t,
                      agent=agent, steps=tuple(steps), answer=answer, error=error,
                      final_observation=Observation(url="http://127.0.0.1:8001/done"))


def csr_score(met: Sequence[Sequence[str] | None], evaluator: str = "constraints:rule"
              ) -> Score:
    """Per-observation matches: the names met at each observation (None: undecided)."""
    rows = []
    for names in met:
        rows.append(ObservationCSR([ConstraintCheck(
            name=c.name, ground_truth=c.value,
            matching=None if names is None else c.name in names) for c in CONSTRAINTS]))
    return trajectory_score(evaluator, rows)


def write_run(root: Path, items, *, name: str | None = None) -> Path:
    with RunStore.create(root, RunInfo(name=name or root.name)) as store:
        for t, scores, artifacts in items:
            store.add_trajectory(t, artifacts)
            if scores:
                store.add_scores([(t.trajectory_id, s) for s in scores])
    return root


ALL = [c.name for c in CONSTRAINTS]


def alpha_items(n_extra: int = 0):
    """hotels-001 fully met, hotels-002 partly, cars-003 unscored, cars-004 an error, and an
    XSS trajectory; `n_extra` more to page through."""
    shot_name = 'shot"><img src=x onerror="window.__xss=1">.png'
    items = [
        (traj(task(1), ["10", "11", "stop"], answer="Casa Azul"),
         [csr_score([[], ALL[:1], ALL, ALL])], None),
        (traj(task(2, difficulty="hard"), ["10", "12", "stop"], answer="nothing"),
         [csr_score([[], ALL[:1], ALL[:2], ALL[:2]])], None),
        (traj(task(3, site="cars"), ["10"]),
         [Score.unscored("constraints:rule", "judge could not decide: pool")], None),
        (traj(task(4, site="cars"), ["10"], error="infrastructure failure: endpoint down"),
         [], None),
        (traj(task(5, intent="XSS intent " + XSS), ["10", "stop"], reasoning="think " + XSS,
              url="javascript:window.__xss=1", tree="[10] [button] [" + XSS + "]",
              shot=shot_name, answer="ans " + XSS),
         [csr_score([[], [], ALL[:1]])], {shot_name: PNG}),
    ]
    for i in range(n_extra):
        items.append((traj(task(100 + i, site="flights"), ["10", "stop"]),
                      [csr_score([[], ALL[:2], ALL])], None))
    return items


def beta_items():
    """The same first tasks by another agent: wins on hotels-002, loses on hotels-001."""
    return [
        (traj(task(1), ["10", "13", "14", "stop"], agent="llm"),
         [csr_score([[], [], ALL[:1], ALL[:2], ALL[:2]])], None),
        (traj(task(2, difficulty="hard"), ["10", "12", "stop"], agent="llm"),
         [csr_score([[], ALL[:1], ALL, ALL])], None),
    ]




def as_schema_1(index: Path) -> None:
    """Make an index look like one written before schema 2 (no summary tables, no search
    index, user_version 0)."""
    conn = sqlite3.connect(index)
    for trigger in ("trajectory_text_ai", "trajectory_text_ad", "trajectory_text_au",
                    "current_scores_trajectory"):
        conn.execute(f"DROP TRIGGER {trigger}")
    for index in ("trajectories_cells", "trajectories_errors"):
        conn.execute(f"DROP INDEX {index}")
    for table in ("trajectory_text", "current_scores", "current_constraints", "step_totals",
                  "constraint_totals"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
