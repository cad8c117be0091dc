"""The README and docs/ name only files that exist: every relative link, every repository path
written in backticks, and every module of the architecture page's "where is X" table."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# A path in backticks that starts at a top folder of the repository.
REPO_PATH = re.compile(r"`((?:src|tests|benchmarks|examples|docs)/[A-Za-z0-9_./-]+)`")
# A module path in the architecture table (relative to src/webtraj/).
MODULE = re.compile(r"`([a-z_]+/(?:[a-z_]+/)*(?:[a-z_]+\.py)?)`")


def _missing(page: Path) -> list[str]:
    text = page.read_text()
    missing = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):      # http:, https:, mailto:
            continue
        if not (page.parent / target).exists():
            missing.append(f"link {target}")
    for path in REPO_PATH.findall(text):
        if not (ROOT / path.rstrip(".")).exists():
            missing.append(f"path {path}")
    return missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_names_only_existing_files(page: Path) -> None:
    assert _missing(page) == []


def test_where_is_x_table_names_existing_modules() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Where is X", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    modules = [m for row in rows[1:] for m in MODULE.findall(row.split("|")[2])]
    assert len(modules) > 40
    missing = [m for m in modules if not (ROOT / "src" / "webtraj" / m).exists()]
    assert missing == []


def test_readme_links_every_doc() -> None:
    readme = (ROOT / "README.md").read_text()
    docs = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [d for d in docs if f"docs/{d}" not in readme] == []


def test_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 220
    assert "make demo" in "\n".join(lines) and "make test" in "\n".join(lines)


def test_trajectory_way_is_numbered_steps_naming_existing_modules() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    way = text.split("## One trajectory's way through the layers", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^(\d+)\. \*\*(\w+)\.\*\*((?:.|\n(?!\d+\. ))*)", way, re.M)
    assert [(int(n), name) for n, name, _ in steps] == list(enumerate(
        ["Run", "Store", "Score", "Curate", "Train", "Serve"], start=1))
    for _, name, body in steps:
        modules = MODULE.findall(body)
        assert modules, f"step {name} names no module"
        missing = [m for m in modules if not (ROOT / "src" / "webtraj" / m).exists()]
        assert missing == [], name
