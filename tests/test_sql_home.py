"""The store owns the run's index: no module of webtraj outside store/ imports sqlite3 or runs
SQL, except the LLM cache, which keeps its own file (llm/cache.py). Read from the AST of every
source file, so the SQL cannot drift back into report, view, cli or evaluate."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import webtraj

SRC = Path(webtraj.__file__).parent
ALLOWED = ("store/", "llm/cache.py")
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|WITH|BEGIN|"
                 r"COMMIT|ROLLBACK|VACUUM|REPLACE)\b", re.IGNORECASE)
EXECUTE = {"execute", "executemany", "executescript"}


def _text(node: ast.expr) -> str | None:
    """The leading literal text of a string or f-string argument."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def offences(tree: ast.AST) -> list[str]:
    """`line: what` for each sqlite3 import and each SQL statement passed to execute()."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"{node.lineno}: import {a.name}" for a in node.names
                    if a.name.split(".")[0] == "sqlite3"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            out.append(f"{node.lineno}: from {node.module} import ...")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in EXECUTE and node.args):
            text = _text(node.args[0])
            if text is not None and SQL.match(text):
                out.append(f"{node.lineno}: .{node.func.attr}({text.strip()[:40]!r}...)")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__" and node.args
              and _text(node.args[0]) == "sqlite3"):
            out.append(f"{node.lineno}: __import__('sqlite3')")
    return out


def test_the_check_finds_sqlite_and_sql_where_they_are():
    found = offences(ast.parse(
        "import sqlite3\nfrom sqlite3 import connect\nimport sqlite3 as db\n"
        "conn.execute('SELECT 1')\nconn.execute(f'  select {x} FROM t')\n"
        "cur.executemany(\"INSERT INTO t VALUES (?)\", rows)\n"
        "page.execute('click [3]')\naction.execute(env)\n"))
    assert [f.split(":")[0] for f in found] == ["1", "2", "3", "4", "5", "6"]
    assert offences(ast.parse((SRC / "store" / "index.py").read_text()))


def test_no_sqlite_or_sql_outside_the_store_and_the_llm_cache():
    bad = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(ALLOWED):
            continue
        found = offences(ast.parse(path.read_text(), filename=str(path)))
        if found:
            bad[rel] = found
    assert not bad, ("SQL on the run index belongs in store/ (its typed read API is "
                     f"store.queries.IndexReader): {bad}")
