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
from webtraj.model.action import ACTION_PHRASE
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


def test_booking_run_summaries(tmp_path):
    out = tmp_path / "runs" / "booking"
    res = runner.invoke(app, ["run", "--suite", "booking", "--agent", "replay", "--today",
                              SANDBOX_TODAY, "--task-ids", "booking.hotels.01,booking.cars.01",
                              "--out", str(out)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    text = res.stdout
    _fits(text)
    # Output is not a terminal: plain progress lines, one per episode of a short run.
    assert "episodes: 2 to do" in res.output
    assert re.search(r"^episodes 1/2  SR [0-9.]+  errors 0", res.output, re.M)
    assert re.search(r"^episodes 2/2  SR 1\.00  errors 0", res.output, re.M)
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


@pytest.mark.skipif(pytest.importorskip("miniwob") is None, reason="needs the miniwob extra")
def test_miniwob_run_summaries_and_compare(tmp_path):
    root = tmp_path / "runs"
    with ScriptedLLMServer(default=_miniwob_reply) as server:
        for name, seeds in (("mw-b", "0"), ("mw-a", "0-1")):
            text = _invoke("run", "--suite", "miniwob", "--task-ids", "click-button",
                           "--seeds", seeds, "--agent", "llm", "--llm",
                           f"base_url={server.base_url},model=scripted", "--max-steps", "3",
                           "--timeout", "60", "--out", str(root / name))
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
    assert usage["calls"] == 4 and [r["role"] for r in usage["rows"]] == ["agent"]
    assert usage["cost_usd"] == pytest.approx(
        (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 2.0) / 1e6)
    assert usage["wall_s"] > 0
    per = [t["usage"] for t in shown["trajectories"]]
    assert [u["calls"] for u in per] == [2, 2]
    assert sum(u["prompt_tokens"] for u in per) == usage["prompt_tokens"]
    human = _invoke("runs", "show", str(root / "mw-a"), "--prices", str(prices))
    _fits(human)
    assert f"{usage['cost_usd']:.4f}" in human and "agent/scripted" in human
    listed = orjson.loads(_invoke("runs", "list", str(root), "--json"))
    assert [e["headline"].split(":")[0] for e in listed] == ["miniwob", "miniwob"]
    runs_page, run_page = _viewer_pages(root, "mw-a")
    assert "miniwob: success 1.00" in runs_page and 'data-metric="reward"' in run_page
    assert "4 calls" in runs_page and "agent" in run_page
    from webtraj.view.server import Viewer

    with Viewer([root]) as v, httpx.Client(base_url=v.url) as http:
        compare = http.get("/compare", params=[("r", "mw-a"), ("r", "mw-b")]).text
    assert "miniwob/click-button/0" in compare and "1.000" in compare


@pytest.mark.skipif(not (FIXTURES / "agent_logs").is_dir(), reason="shared fixtures absent")
def test_imported_webarena_verified_run_summaries(tmp_path):
    urls = tmp_path / "urls.json"
    urls.write_text('{"shopping_admin": "http://192.168.1.35:7780"}')
    run = tmp_path / "runs" / "wav"
    _invoke("import", "webarena-verified", "--dataset", str(FIXTURES / "webarena-verified.json"),
            "--logs", str(FIXTURES / "agent_logs"), "--site-urls", str(urls), "--out", str(run))
    text = _invoke("eval", "--run", str(run))
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
