"""Scripts outside the package (benchmarks/, examples/, docs/ helpers) import webtraj by
name, often inside functions, so a module moved or renamed breaks them only when someone runs
them. Every `from webtraj... import name` they hold must resolve."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_DIRS = ("benchmarks", "examples", "docs")


def unresolved(path: Path) -> list[str]:
    """`line: module.name` for each webtraj import of `path` that does not resolve."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted = [(a.name, None) for a in node.names if a.name.startswith("webtraj")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("webtraj"):
            wanted = [(node.module, a.name) for a in node.names]
        else:
            continue
        for module_name, name in wanted:
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                out.append(f"{node.lineno}: {module_name} ({exc})")
                continue
            if name is None or hasattr(module, name):
                continue
            try:
                importlib.import_module(f"{module_name}.{name}")
            except ImportError:
                out.append(f"{node.lineno}: {module_name}.{name}")
    return sorted(out, key=lambda text: int(text.split(":")[0]))


def scripts() -> list[Path]:
    return sorted(p for d in SCRIPT_DIRS for p in (ROOT / d).rglob("*.py"))


def test_the_check_finds_a_moved_name(tmp_path):
    moved = tmp_path / "old.py"
    moved.write_text("def f():\n    from webtraj.store.index import NO_SUCH_NAME\n"
                     "import webtraj.no_such_module\n", encoding="utf-8")
    assert unresolved(moved) == [
        "2: webtraj.store.index.NO_SUCH_NAME",
        "3: webtraj.no_such_module (No module named 'webtraj.no_such_module')"]


@pytest.mark.parametrize("path", scripts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_script_imports_resolve(path):
    assert unresolved(path) == [], path
