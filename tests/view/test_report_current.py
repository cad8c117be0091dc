"""`webtraj report RUN` rebuilds report.html with the per-constraint table, unscored reasons
and a CSR-by-step plot with axes; the file gets normal permissions."""

from __future__ import annotations

import stat
from pathlib import Path

from typer.testing import CliRunner
from view_builders import alpha_items, write_run

from webtraj.cli.app import app


def test_report_command_rebuilds_with_constraints_reasons_and_plot(tmp_path: Path):
    run = write_run(tmp_path / "alpha", alpha_items())
    result = CliRunner().invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    path = run / "report.html"
    html = path.read_text()
    assert 'id="by-constraint"' in html
    rows = html.split('id="by-constraint"')[1].split("</table>")[0]
    # pool: met at the end of hotels-001, not met at the end of hotels-002 and hotels-005
    assert "<code>pool</code></td><td class=\"num\">1</td><td class=\"num\">2</td>" in rows
    assert "constraints:rule unscored: judge could not decide: pool" in html
    assert '<svg class="plot"' in html and "step (0 = start page)" in html
    assert ">1.0</text>" in html and ">0.0</text>" in html  # y axis ticks
    assert "<script>window.__xss" not in html
    assert stat.S_IMODE(path.stat().st_mode) & 0o044 == 0o044  # readable by group/others


def test_report_of_a_folder_that_is_not_a_run(tmp_path: Path):
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2 and "not a webtraj run" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_eval_and_judges_compare_refresh_the_report(tmp_path: Path):
    run = write_run(tmp_path / "alpha", alpha_items())
    path = run / "report.html"
    assert not path.exists()
    result = CliRunner().invoke(app, ["eval", "--run", str(run), "--evaluator",
                                      "constraints:judge=rule,steps=all"])
    assert result.exit_code == 0, result.output
    assert "constraints:rule" in path.read_text()
    path.unlink()
    # The rule judge against itself: judged (report refreshed), then nothing to compare.
    result = CliRunner().invoke(app, ["judges", "compare", "--run", str(run), "--judges",
                                      "rule", "--reference", "rule", "--rescore"])
    assert "judged" in result.output and path.exists()
