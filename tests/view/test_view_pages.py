"""The viewer a person wants, in real Chromium on a real viewer: the trajectory page opens at
its top; the timeline names the element each step acts on and labels a reply that was not an
action; a step shows the model's reply and the messages it received; score details read as
tables; a HAR of 10,000 requests is grouped, filtered and paged; rows come in natural orders;
the CSR-by-step curve carries finished episodes forward and states n; every page fits 800 px
without clipping the timeline."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import orjson
import pytest
from playwright.async_api import expect
from view_builders import ALL, csr_score, task, traj, write_run

from webtraj.model import Score, Step, Trajectory

pytestmark = pytest.mark.asyncio(loop_scope="session")

LLM_TID = Trajectory.make_id("hotels-001", "llm", 0)
HAR_TID = Trajectory.make_id("hotels-002", "llm", 0)
TRIALS = (10, 2, 0, 11, 1, 3)  # inserted in this order; natural order is 0 1 2 3 10 11
N_REQUESTS = 10_000


def _llm_trajectory() -> Trajectory:
    """Two steps: an unparsed reply, then a click by id on a named element."""
    t = traj(task(1, intent="Find a cabin in Lisbon with a pool"), ["10", "stop"], agent="llm")
    unparsed = Step(index=0, observation=t.steps[0].observation, action=None,
                    raw_output="Hmm, maybe the blue button? (no action written)",
                    error="no action found in the reply")
    clicked = t.steps[0].model_copy(update={"index": 1})
    stop = t.steps[1].model_copy(update={"index": 2})
    return t.model_copy(update={"steps": (unparsed, clicked, stop)})


def _har(n: int) -> bytes:
    """A HAR of n requests over n // 1000 pages: a document, then images, scripts and
    fetches, every 7th fetch a 404."""
    entries = []
    for i in range(n):
        page = i // 1000
        if i % 1000 == 0:
            url, mime, status = f"http://127.0.0.1:8001/page{page}", "text/html", 200
        elif i % 3 == 0:
            url, mime, status = f"http://127.0.0.1:8001/img/{i}.png", "image/png", 200
        elif i % 3 == 1:
            url, mime, status = f"http://127.0.0.1:8001/js/{i}.js", "text/javascript", 200
        else:
            url, mime = f"http://127.0.0.1:8001/api/item?id={i}", "application/json"
            status = 404 if i % 7 == 0 else 200
        entries.append({"request": {"method": "GET", "url": url},
                        "response": {"status": status, "content": {"mimeType": mime}}})
    return orjson.dumps({"log": {"version": "1.2", "entries": entries}})


@pytest.fixture(scope="module")
def ux_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ux") / "runs"
    details = Score(evaluator="NetworkEventEvaluator", value=1.0, details={
        "note": "a&b <x>", "actual": [{"url": "http://h/?a=1&b=2", "status": 200}]})
    har_traj = Trajectory.model_validate({
        **traj(task(2), ["10", "stop"], agent="llm").model_dump(),
        "network_trace": "network.har",
        "blocked_requests": [{"url": "stun:stun.example.org:3478", "reason": "webrtc",
                              "time": 1.0}],
        "refused_tunnels": [{"url": "https://evil.example/", "method": "CONNECT",
                             "reason": "network", "time": 2.0}],
        "dialogs": [{"kind": "alert", "message": "Hello <b>there</b>",
                     "url": "http://127.0.0.1:8001/", "accepted": True, "time": 1.0}],
        "downloads": [{"url": "http://127.0.0.1:8001/r.pdf",
                       "suggested_filename": "r.pdf", "file": "r.pdf", "bytes": 1234,
                       "sha256": "ab" * 32, "time": 2.0, "cut_at": 1234, "cut_by": "file"}]})
    items = [(_llm_trajectory(), [csr_score([[], ALL[:1], ALL, ALL]), details], None),
             (har_traj, [], {"network.har": _har(N_REQUESTS)})]
    base = traj(task(3, difficulty="medium"), ["10", "stop"])
    for trial in TRIALS:
        items.append((base.model_copy(update={
            "trajectory_id": Trajectory.make_id(base.task.task_id, "heuristic", trial),
            "trial": trial}), [], None))
    for i, diff in ((4, "hard"), (5, "easy")):
        items.append((traj(task(i, difficulty=diff), ["10", "stop"]), [], None))
    write_run(root / "ux", items)
    # The curve: one episode ends at step 1 with CSR 1, the other runs to step 3 (CSR 1/3).
    write_run(root / "curve", [
        (traj(task(1), ["10"]), [csr_score([[], ALL])], None),
        (traj(task(2), ["10", "11", "12"]), [csr_score([[], [], [], ALL[:1]])], None)])
    return root


@pytest.fixture(scope="module")
def ux_viewer(ux_root: Path):
    from webtraj.view.server import Viewer

    with Viewer([ux_root]) as v:
        yield v


def _url(v, route: str, **params) -> str:
    return v.url + route + "?" + urlencode(params, doseq=True)


async def test_trajectory_opens_at_top_names_steps_and_shows_the_model(ux_viewer, page):
    await page.goto(_url(ux_viewer, "trajectory", r="ux", t=LLM_TID))
    await expect(page.locator("body")).to_have_attribute("data-step", "0")
    # at the top: task and scores in view, no step hash written
    assert await page.evaluate("window.scrollY") == 0
    assert await page.evaluate("location.hash") == ""
    await expect(page.locator("#intent")).to_be_in_viewport()
    labels = await page.locator(".timeline a").all_inner_texts()
    assert [" ".join(x.split()) for x in labels] == [
        "0 unparsed reply", "1 click [10] button 'Option 10'", "2 stop []"]
    step0 = page.locator("#step-0")
    assert "Action: none (unparsed reply)" in await step0.inner_text()
    await expect(step0.locator("details.raw-output pre")).to_have_text(
        "Hmm, maybe the blue button? (no action written)")
    await expect(page.locator("#step-legend")).to_be_visible()
    # score details read as tables: text as text, no JSON escapes
    row = page.locator("#scores tr", has_text="NetworkEventEvaluator")
    await row.locator("details summary").click()
    details = row.locator("details table.details").first
    await expect(details).to_be_visible()
    text = await details.inner_text()
    assert "a&b <x>" in text and "http://h/?a=1&b=2" in text and "\\u0026" not in text
    # the messages the model received at step 1 (rebuilt, and said so)
    await page.keyboard.press("j")
    await expect(page.locator("body")).to_have_attribute("data-step", "1")
    await page.locator("#step-1 a.prompt-link").click()
    await expect(page.locator("#prompt-note")).to_contain_text("does not store prompts")
    roles = await page.locator(".message .role").all_inner_texts()
    assert [r.lower() for r in roles][0] == "system" and roles[-1].lower() == "user"
    last = await page.locator("pre.message-text").nth(len(roles) - 1).inner_text()
    assert "TASK: Find a cabin in Lisbon with a pool" in last and "[10] [button]" in last
    assert "1. (no valid action) [error: no action found in the reply]" in last  # history


async def test_ten_thousand_requests_grouped_filtered_paged(ux_viewer, page):
    await page.goto(_url(ux_viewer, "trajectory", r="ux", t=HAR_TID))
    await expect(page.locator("#net-summary")).to_contain_text(f"{N_REQUESTS + 2} requests")
    # grouped by page: 10 documents and the refused ones, a row each (not 10,000 rows)
    assert await page.locator("#network-pages tr").count() == 12
    assert await page.evaluate("document.body.scrollHeight") < 4000
    # what the browser answered or refused is shown with the requests
    assert "Hello <b>there</b>" in await page.inner_text("#dialogs")
    assert "r.pdf" in await page.inner_text("#downloads")
    assert "1234 (cut at the file cap)" in await page.inner_text("#downloads")
    total = N_REQUESTS + 2  # and the two the guard refused
    await page.click("#all-requests")
    assert await page.locator("#network tr.req").count() == 100
    await expect(page.locator("#net-count")).to_contain_text(
        f"{total} of {total} requests match · page 1 of 101")
    await page.select_option("select[name=status]", "blocked")
    await page.click("#net-apply")
    rows = await page.locator("#network tr.req").all_inner_texts()
    assert len(rows) == 2 and "blocked: webrtc" in rows[0] and "blocked: network" in rows[1]
    await page.select_option("select[name=status]", "4xx")
    await page.click("#net-apply")
    n404 = sum(1 for i in range(N_REQUESTS) if i % 1000 and i % 3 == 2 and i % 7 == 0)
    await expect(page.locator("#net-count")).to_contain_text(f"{n404} of {total}")
    rows = await page.locator("#network tr.req").all_inner_texts()
    assert rows and all("404" in r and "/api/item" in r for r in rows)
    await page.select_option("select[name=status]", "")
    await page.select_option("select[name=type]", "document")
    await page.click("#net-apply")
    await expect(page.locator("#net-count")).to_contain_text(f"10 of {total}")
    await page.select_option("select[name=type]", "")
    await page.select_option("select[name=pg]", "3")  # the third page's requests
    await page.fill("input[name=q]", "/js/")
    await page.click("#net-apply")
    rows = await page.locator("#network tr.req").all_inner_texts()
    assert rows and all("/js/" in r and "page2" in r for r in rows)
    n_js = sum(1 for i in range(2000, 3000) if i % 1000 and i % 3 == 1)
    await expect(page.locator("#net-count")).to_contain_text(f"{n_js} of {total}")
    await page.click("#net-next")
    await expect(page.locator("#net-count")).to_contain_text("page 2 of 4")


async def test_natural_orders_and_the_curve(ux_viewer, page):
    await page.goto(_url(ux_viewer, "run", r="ux"))
    diffs = await page.locator("#by-site tr td:nth-child(2)").all_inner_texts()
    assert diffs == ["easy", "medium", "hard"]  # inserted medium, hard, easy
    ids = await page.locator("a.traj-link").all_inner_texts()
    trials = [int(i.rsplit("__t", 1)[1]) for i in ids if i.startswith("hotels-003")]
    assert trials == sorted(TRIALS)
    assert "natural order" in await page.inner_text("#count")
    await page.goto(_url(ux_viewer, "run", r="curve"))
    # finished episodes carry their final value: step 2 = (1 + 0) / 2, step 3 = (1 + 1/3) / 2
    titles = await page.locator("svg.plot circle.pt title").all_text_contents()
    assert titles == ["step 0: 0.000, 2 episodes still running",
                      "step 1: 0.500, 2 episodes still running",
                      "step 2: 0.500, 1 episodes still running",
                      "step 3: 0.667, 1 episodes still running"]
    assert await page.locator("svg.plot text.n").all_text_contents() == ["n=2", "n=2", "n=1",
                                                                      "n=1"]
    await expect(page.locator("#curve-legend")).to_contain_text("carried forward")


async def test_every_page_fits_800_px(ux_viewer, chromium):
    context = await chromium.new_context(viewport={"width": 800, "height": 900})
    page = await context.new_page()
    try:
        pages = [_url(ux_viewer, ""), _url(ux_viewer, "run", r="ux"),
                 _url(ux_viewer, "trajectory", r="ux", t=LLM_TID),
                 _url(ux_viewer, "network", r="ux", t=HAR_TID),
                 _url(ux_viewer, "prompt", r="ux", t=LLM_TID, i=1),
                 _url(ux_viewer, "compare", r=["ux", "curve"], task="hotels-001")]
        for url in pages:
            await page.goto(url)
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 800, (url, width)
        # the timeline: every step's full label visible, none cut off
        await page.goto(_url(ux_viewer, "trajectory", r="ux", t=LLM_TID))
        await expect(page.locator("body")).to_have_attribute("data-step", "0")
        for link in await page.locator(".timeline a").all():
            await expect(link).to_be_visible()
            box = await link.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 800
            clipped = await link.evaluate("a => a.scrollWidth > a.clientWidth + 1")
            assert not clipped
        assert "button 'Option 10'" in await page.locator(".timeline").inner_text()
        await expect(page.locator("#step-0 .stepgrid")).to_be_visible()
    finally:
        await context.close()
