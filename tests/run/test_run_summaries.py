"""Every command's summary shows the metrics of the evaluator family that scored the run,
with n, errors apart and Wilson intervals: a booking run (constraints SR/CSR and the
WebArena-Verified checks its tasks declare), a MiniWoB++ run (success and mean reward) and an
imported WebArena-Verified run (pass rate and per-check pass). Before, MiniWoB++ and
WebArena-Verified runs ended with "scored 0, SR -" and compared as empty tables."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import orjson
import pytest
from typer.testing import CliRunner

from factories import SANDBOX_TODAY
from webtraj.cli.app import app
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing import ScriptedLLMServer

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / \
    "webarena-verified"


def _invoke(*args: str) -> str:
    res = runner.invoke(app, list(args), env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    return res.stdout


def _show(run: Path) -> dict:
    return orjson.loads(_invoke("runs", "show", str(run), "--json"))


def _rows(shown: dict) -> dict[str, dict]:
    return {r["name"]: r for r in shown["metrics"]["rows"]}


def _metric(row: dict, key: str) -> dict:
    return next(m for m in row["metrics"] if m["key"] == key)


def _fits(text: str, width: int = 80) -> None:
    wide = [ln for ln in text.splitlines() if len(ln) > width]
    assert not wide, wide


def _viewer_pages(root: Path, key: str) -> tuple[str, str]:
    from webtraj.view.server import Viewer

    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        return http.get("/").text, http.get("/run", params={"r": key}).text


@pytest.fixture(scope="module")
def booking_run(tmp_path_factory) -> tuple[Path, str, str, str]:
    """A replay run of two booking tasks: (run, stdout, all output, the Python API's result
    printed then, before any test re-scores the run)."""
    import webtraj.api as wt
    from webtraj.report.tables import as_text

    out = tmp_path_factory.mktemp("booking") / "runs" / "booking"
    res = runner.invoke(app, ["run", "--suite", "booking", "--agent", "replay", "--today",
                              SANDBOX_TODAY, "--task-ids", "booking.hotels.01,booking.cars.01",
                              "--out", str(out)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    return out, res.stdout, res.output, as_text(wt.Run.load(out), width=80)


def test_booking_run_summaries(booking_run):
    out, text, output, _ = booking_run
    tmp_path = out.parent.parent
    _fits(text)
    # Output is not a terminal: plain progress lines, one per episode of a short run.
    assert "episodes: 2 to do" in output
    assert re.search(r"^episodes 1/2  SR [0-9.]+  errors 0", output, re.M)
    assert re.search(r"^episodes 2/2  SR 1\.00  errors 0", output, re.M)
    # The end-of-run table: the constraint judge's SR with its interval and CSR.
    assert re.search(r"constraints:oracle.*SR 1\.000 \[0\.34-1\.00\]", text, re.S)
    assert "CSR 1.000" in text and "WebArena-Verified" in text
    rows = _rows(_show(out))
    oracle = rows["constraints:oracle"]
    assert (oracle["scored"], oracle["errors"]) == (2, 0)
    sr = _metric(oracle, "sr")
    assert sr["value"] == 1.0 and sr["n"] == 2 and sr["low"] == pytest.approx(0.342, abs=1e-3)
    assert _metric(oracle, "csr")["value"] == 1.0
    wav = rows["WebArena-Verified"]
    assert wav["scored"] == 2 and _metric(wav, "pass")["value"] == 1.0
    # Its network checks are named by the request they look for, not `#2`.
    names = set(_show(out)["evaluators"])
    assert not any("#" in n for n in names)
    assert "NetworkEventEvaluator[no POST __HOTELS__/book]" in names or any(
        n.startswith("NetworkEventEvaluator[no POST") for n in names)
    shown = _invoke("runs", "show", str(out))
    _fits(shown)
    # Task ids are wrapped, never cut.
    assert "booking.hotels.01__replay__t0" in shown.replace("\n", "").replace("│", "") \
        or "booking.hotels.01__replay__t0" in shown
    listed = orjson.loads(_invoke("runs", "list", str(tmp_path / "runs"), "--json"))
    assert listed[0]["headline"].startswith("constraints:oracle: SR 1.00 [0.34-1.00] (n=2)")
    report = (out / "report.html").read_text()
    assert 'data-metric="sr"' in report and "[0.34–1.00]" in report
    runs_page, run_page = _viewer_pages(tmp_path / "runs", "booking")
    assert "constraints:oracle: SR 1.00" in runs_page
    assert 'data-metric="csr"' in run_page and "WebArena-Verified" in run_page

    # Re-scored by an LLM judge: `eval` prints the metrics and the judges' usage as tables,
    # and each trajectory's share of the judge's calls is kept with its score.
    with ScriptedLLMServer(default='```json\n{}\n```') as server:
        text = _invoke("eval", "--run", str(out), "--evaluator", "constraints:judge=llm",
                       "--llm", f"base_url={server.base_url},model=scripted")
        calls = server.request_count
    _fits(text)
    assert "constraints:llm" in text and "judges/scripted" in text
    assert "model calls: {" not in text
    shown = _show(out)
    judges = shown["usage"]["rows"]
    assert [(r["role"], r["model"]) for r in judges] == [("judges", "scripted")]
    per = [t["judge_usage"]["constraints:llm"]["calls"] for t in shown["trajectories"]]
    assert all(n >= 1 for n in per) and sum(per) == calls == judges[0]["usage"]["calls"]


def test_a_python_run_result_prints_as_the_cli_summary(booking_run):
    """`print(wt.run(...))` shows the tables `webtraj run` printed at its end (one rendering),
    then the run's folder and report; its repr is one short line, not the pydantic dump."""
    import webtraj.api as wt
    from webtraj.report.tables import as_text

    out, text, _, shown = booking_run
    tables, _, last = shown.rstrip("\n").rpartition("\nrun: ")
    assert tables and tables in text  # the CLI's own table, line for line
    assert "".join(last.split()) == f"{out}report:{out / 'report.html'}"  # maybe wrapped
    assert re.search(r"constraints:oracle.*SR 1\.000", shown, re.S)
    result = wt.Run.load(out)
    assert str(result) == as_text(result).rstrip("\n")
    assert repr(result) == f"Run(path={str(out)!r}, trajectories=2, report=True)"


def _miniwob_reply(request) -> str:
    text = request.last_user
    if "PREVIOUS ACTIONS:\nNone" not in text:
        return f"Clicked it. {ACTION_PHRASE} ```stop []```"
    task = re.search(r"^TASK: (.*)$", text, re.M).group(1)
    word = re.search(r'"([^"]*)"', task).group(1)
    for line in text.splitlines():
        m = re.match(r"\s*\[(\d+)\] \[button\] \[([^\]]*)\]", line)
        if m and m.group(2) == word:
            return f"The button is {word}. {ACTION_PHRASE} ```click [{m.group(1)}]```"
    return f"No such button. {ACTION_PHRASE} ```stop []```"


@pytest.fixture(scope="module")
def miniwob_runs(tmp_path_factory) -> tuple[Path, str]:
    """Two MiniWoB++ runs of click-button by the scripted model (mw-a: seeds 0-1, mw-b:
    seed 0) under one folder: (folder, end of mw-a's output)."""
    pytest.importorskip("miniwob", reason="needs the miniwob extra")
    root = tmp_path_factory.mktemp("miniwob") / "runs"
    with ScriptedLLMServer(default=_miniwob_reply) as server:
        for name, seeds in (("mw-b", "0"), ("mw-a", "0-1")):
            text = _invoke("run", "--suite", "miniwob", "--task-ids", "click-button",
                           "--seeds", seeds, "--agent", "llm", "--llm",
                           f"base_url={server.base_url},model=scripted", "--max-steps", "3",
                           "--timeout", "60", "--out", str(root / name))
    return root, text


def test_miniwob_run_summaries_and_compare(miniwob_runs, tmp_path):
    root, text = miniwob_runs
    _fits(text)
    assert "scored 0" not in text and "SR -" not in text
    assert re.search(r"miniwob.*success 1\.000 \[0\.34-1\.00\]", text, re.S), text
    assert "reward" in text and "agent/scripted" in text  # the usage table
    row = _rows(_show(root / "mw-a"))["miniwob"]
    assert (row["scored"], row["errors"]) == (2, 0)
    assert _metric(row, "success")["value"] == 1.0
    reward = _metric(row, "reward")
    assert reward["n"] == 2 and 0 < reward["value"] <= 1
    # Usage per run and per trajectory, and a cost once prices are given.
    prices = tmp_path / "prices.json"
    prices.write_text('{"scripted": {"prompt": 1.0, "completion": 2.0}}')
    shown = orjson.loads(_invoke("runs", "show", str(root / "mw-a"), "--json", "--prices",
                                 str(prices)))
    usage = shown["usage"]
    # One call per episode: the page ends it at its reward, before any stop (issue 42).
    assert usage["calls"] == 2 and [r["role"] for r in usage["rows"]] == ["agent"]
    assert usage["cost_usd"] == pytest.approx(
        (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 2.0) / 1e6)
    assert usage["wall_s"] > 0
    per = [t["usage"] for t in shown["trajectories"]]
    assert [u["calls"] for u in per] == [1, 1]
    assert sum(u["prompt_tokens"] for u in per) == usage["prompt_tokens"]
    human = _invoke("runs", "show", str(root / "mw-a"), "--prices", str(prices))
    _fits(human)
    assert f"{usage['cost_usd']:.4f}" in human and "agent/scripted" in human
    listed = orjson.loads(_invoke("runs", "list", str(root), "--json"))
    assert [e["headline"].split(":")[0] for e in listed] == ["miniwob", "miniwob"]
    runs_page, run_page = _viewer_pages(root, "mw-a")
    assert "miniwob: success 1.00" in runs_page and 'data-metric="reward"' in run_page
    assert "2 calls" in runs_page and "agent" in run_page
    from webtraj.view.server import Viewer

    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        compare = http.get("/compare", params=[("r", "mw-a"), ("r", "mw-b")]).text
    assert "miniwob/click-button/0" in compare and "1.000" in compare


@pytest.fixture(scope="module")
def wav_run(tmp_path_factory) -> tuple[Path, str]:
    """The shared WebArena-Verified agent logs imported and scored: (run, eval's output)."""
    if not (FIXTURES / "agent_logs").is_dir():
        pytest.skip("shared fixtures absent")
    tmp_path = tmp_path_factory.mktemp("wav")
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping_admin": "http://192.168.1.35:7780"}')
    run = tmp_path / "runs" / "wav"
    _invoke("import", "webarena-verified", "--dataset", str(FIXTURES / "webarena-verified.json"),
            "--logs", str(FIXTURES / "agent_logs"), "--site-urls", str(urls), "--out", str(run))
    return run, _invoke("eval", "--run", str(run))


def test_imported_webarena_verified_run_summaries(wav_run):
    run, text = wav_run
    tmp_path = run.parent.parent
    _fits(text)
    assert "model calls: {" not in text
    expected = [orjson.loads((FIXTURES / "agent_logs" / t / "eval_result.json").read_bytes())
                ["score"] for t in ("107", "108")]
    rows = _rows(_show(run))
    wav = rows["WebArena-Verified"]
    assert (wav["scored"], wav["errors"]) == (2, 0)
    passed = _metric(wav, "pass")
    assert passed["value"] == sum(expected) / 2 and passed["n"] == 2
    assert passed["low"] is not None and passed["high"] is not None
    kinds = [r for r in rows.values() if r["part_of"] == "WebArena-Verified"]
    assert kinds and all(_metric(k, "check_pass")["n"] >= 1 for k in kinds)
    assert re.search(r"WebArena-Verified\s*│\s*2", text)
    shown = _invoke("runs", "show", str(run))
    _fits(shown)
    assert "WebArena-Verified" in shown and "pass 0.500" in shown
    listed = orjson.loads(_invoke("runs", "list", str(tmp_path / "runs"), "--json"))
    assert listed[0]["headline"].startswith("WebArena-Verified: pass 0.50")
    runs_page, run_page = _viewer_pages(tmp_path / "runs", "wav")
    assert "WebArena-Verified: pass 0.50" in runs_page and 'data-metric="pass"' in run_page


def test_progress_lines_when_not_a_terminal():
    """A long job logs about every 5%, and always its last item, never a bar."""
    import io

    from rich.console import Console

    from webtraj.cli.progress import JobProgress

    buf = io.StringIO()
    console = Console(file=buf, width=80)
    assert not console.is_terminal
    with JobProgress(console, "episodes", every_s=float("inf")) as progress:
        progress.start(200)
        for i in range(200):
            progress.advance(f"SR {i / 200:.2f}")
    lines = buf.getvalue().splitlines()
    assert lines[0] == "episodes: 200 to do"
    assert len(lines) == 1 + 20 and lines[-1].startswith("episodes 200/200  SR 0.99")
    assert "━" not in buf.getvalue()


def test_runs_list_and_show_fit_80_columns_without_shared_truncation(tmp_path):
    """Runs deep under a long common folder are listed by their paths relative to the folder
    given, wrapped, never cut to the same prefix; long trajectory ids are wrapped too."""
    from factories import make_trajectory
    from webtraj.model import RunInfo, Score
    from webtraj.store import RunStore

    root = tmp_path / "experiments"
    long = "a-very-long-experiment-folder-name-2026-01-15-seed-0"
    for agent in ("agent-one", "agent-two"):
        run = root / long / agent
        with RunStore.create(run, RunInfo(name=agent, command="x " * 60)) as store:
            t = make_trajectory("task-with-a-rather-long-identifier-" + "x" * 40)
            store.add_trajectory(t)
            store.add_scores([(t.trajectory_id, Score(evaluator="constraints:rule",
                                                      value=1.0))])
    text = _invoke("runs", "list", str(root))
    _fits(text)
    assert "…" not in text
    runs = _column(text, 0)
    for agent in ("agent-one", "agent-two"):
        assert f"{long}/{agent}" in runs
    assert "constraints:rule: SR 1.00" in " ".join(
        ln.split("│")[5].strip() for ln in text.splitlines() if ln.count("│") == 6)
    shown = _invoke("runs", "show", str(root / long / "agent-one"))
    _fits(shown)
    assert "…" not in shown
    assert ("task-with-a-rather-long-identifier-" + "x" * 40) in _column(shown, 0)


def _column(text: str, i: int) -> str:
    """The text of a table's i-th column, its wrapped pieces joined."""
    return "".join(ln.split("│")[i + 1].strip() for ln in text.splitlines()
                   if ln.startswith("│"))


@pytest.fixture(scope="module")
def m2w_run(tmp_path_factory) -> Path:
    """The real SeeAct Mind2Web step imported and scored by the `mind2web` evaluator."""
    data = FIXTURES.parent / "mind2web" / "seeact_step.jsonl"
    if not data.is_file():
        pytest.skip("shared fixtures absent")
    run = tmp_path_factory.mktemp("m2w") / "runs" / "m2w"
    _invoke("import", "mind2web", str(data), "--out", str(run))
    _invoke("eval", "--run", str(run))
    return run


def _fits_window(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url


def test_viewer_click_through_in_chromium(booking_run, miniwob_runs, wav_run, m2w_run):
    """The same three runs and an imported Mind2Web run in the viewer, clicked through in
    Chromium at 1280 and 800 px: each run's headline numbers on the runs, run and
    trajectory pages, and two MiniWoB++ runs compared with numbers in every table; no page
    wider than the window."""
    from playwright.sync_api import expect, sync_playwright

    from webtraj.browser.chromium import launch_chromium
    from webtraj.view.server import Viewer

    runs = (  # run, its headline on the runs page, run-page metric and value, evaluator
        ("booking", "constraints:oracle: SR 1.00", "sr", "SR 1.000", "constraints:oracle"),
        ("mw-a", "miniwob: success 1.00", "success", "success 1.000", "miniwob"),
        ("wav", "WebArena-Verified: pass 0.50", "pass", "pass 0.500", "AgentResponseEvaluator"),
        ("m2w", "mind2web: element acc 1.00 (n=1) · op F1 1.00 (n=1) · step SR 1.00 (n=1) · "
         "task SR 1.00", "element_acc", "element acc 1.000", "mind2web"))
    sources = [booking_run[0].parent, miniwob_runs[0], wav_run[0].parent, m2w_run.parent]
    expect.set_options(timeout=30_000)  # a loaded machine is slow, never wrong
    with Viewer(sources) as v, sync_playwright() as pw:
        home = v.url.rstrip("/") + "/"
        browser = launch_chromium(pw)
        try:
            for width in (1280, 800):
                page = browser.new_page(viewport={"width": width, "height": 900})
                for name, headline, metric, value, evaluator in runs:
                    page.goto(home)
                    row = page.locator("#runs tr", has=page.get_by_role(
                        "link", name=name, exact=True))
                    expect(row.locator(".headline")).to_contain_text(headline)
                    _fits_window(page, width)
                    row.locator("a.run-link").click()
                    cell = page.locator(f'#metrics td[data-metric="{metric}"]').first
                    expect(cell).to_contain_text(value)
                    expect(cell.locator(".n")).to_have_text(re.compile(r"n=[1-9]"))
                    # per-trajectory column named by the headline family's value
                    word = {"booking": "CSR", "mw-a": "success", "wav": "pass",
                            "m2w": "task success"}[name]
                    expect(page.locator("#trajectories th").nth(4)).to_have_text(word)
                    _fits_window(page, width)
                    page.locator('a[href^="/trajectory"]').first.click()
                    scores = page.locator("#scores")
                    expect(scores).to_contain_text(evaluator)
                    # the headline score is labelled by its family (not "CSR" for all)
                    label = {"booking": "(CSR)", "mw-a": "(success)",
                             "m2w": "(task success)"}.get(name)
                    if label:
                        expect(scores).to_contain_text(label)
                    expect(scores.locator("td.num").first).to_have_text(
                        re.compile(r"^[01]\.\d+$"))
                    assert page.evaluate("window.scrollY") == 0
                    _fits_window(page, width)
                page.goto(home)
                page.get_by_label("compare mw-a", exact=True).check()
                page.get_by_label("compare mw-b", exact=True).check()
                page.locator("#compare-btn").click()
                expect(page.locator("#compare-metrics")).to_contain_text(
                    "miniwob: success 1.00")
                expect(page.locator("#compare-metrics td.headline")).to_contain_text(
                    ["miniwob: success 1.00 [0.34-1.00] (n=2)",
                     "miniwob: success 1.00 [0.21-1.00] (n=1)"])
                cells = page.locator("#per-task td.num")
                # click-button seed 0 in both runs, seed 1 only in mw-a (shown without number)
                expect(cells).to_have_text(["1.000", "1.000", "1.000", re.compile(r"^[^0-9]*$")])
                expect(page.locator("#tallies")).to_contain_text("mw-b")
                _fits_window(page, width)
                page.locator("a.task-compare").first.click()
                # each run's column names the evaluator its number comes from (not "CSR")
                header = page.locator("#aligned tr").first
                expect(header).to_contain_text("miniwob 1.000")
                expect(header).not_to_contain_text("CSR")
                _fits_window(page, width)
                page.close()
        finally:
            browser.close()
            expect.set_options(timeout=5_000)
