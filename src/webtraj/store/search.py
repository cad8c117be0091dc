"""Substring search in a run's intents, answers and task ids through an FTS5 trigram index
(index schema 2), kept in step with `trajectories` by triggers, so a search is an index
lookup rather than a scan of every row. Trigram matching is case-insensitive like SQLite's
LIKE; queries shorter than three characters cannot use it and scan instead."""

from __future__ import annotations

import sqlite3

MIN_CHARS = 3

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS trajectory_text USING fts5(
    intent, answer, task_id, content='trajectories', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS trajectory_text_ai AFTER INSERT ON trajectories BEGIN
    INSERT INTO trajectory_text(rowid, intent, answer, task_id)
    VALUES (new.id, new.intent, new.answer, new.task_id);
END;
CREATE TRIGGER IF NOT EXISTS trajectory_text_ad AFTER DELETE ON trajectories BEGIN
    INSERT INTO trajectory_text(trajectory_text, rowid, intent, answer, task_id)
    VALUES ('delete', old.id, old.intent, old.answer, old.task_id);
END;
CREATE TRIGGER IF NOT EXISTS trajectory_text_au AFTER UPDATE ON trajectories BEGIN
    INSERT INTO trajectory_text(trajectory_text, rowid, intent, answer, task_id)
    VALUES ('delete', old.id, old.intent, old.answer, old.task_id);
    INSERT INTO trajectory_text(rowid, intent, answer, task_id)
    VALUES (new.id, new.intent, new.answer, new.task_id);
END;
"""


def create(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def rebuild(conn: sqlite3.Connection) -> None:
    """Index the rows written before the table existed (a migrated index)."""
    conn.execute("INSERT INTO trajectory_text(trajectory_text) VALUES ('rebuild')")


def phrase(text: str) -> str | None:
    """`text` as an FTS5 phrase matching it as a substring, or None when too short."""
    if len(text) < MIN_CHARS:
        return None
    return '"' + text.replace('"', '""') + '"'
