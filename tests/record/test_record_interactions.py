"""`webtraj record --url`: every kind of interaction a person has with a browser becomes its
webtraj action (clicks, typing with Enter, keys, scrolls, back/forward, the address bar, tabs
opened by a link, switched and closed), a click on nothing and a page outside the allowlist
are kept as steps that say so, the hotkey ends the task with the panel's answer; a browser
closed mid-task keeps what was recorded."""

from __future__ import annotations

import asyncio
import contextlib
import signal

from demo_site import DemoSite
from person import Person, attach, free_port, record_session, start_recorder
from playwright.async_api import async_playwright
from sandbox_demos import run_cli

from webtraj.model.action import ActionKind
from webtraj.store import RunStore

K = ActionKind


def _record(tmp_path, site: DemoSite, script, *, expect_rc: int = 0) -> RunStore:
    return RunStore.open(record_session(tmp_path, site.url + "/", "Like the demo page", script,
                                        expect_rc=expect_rc))


def test_every_interaction_is_recorded(tmp_path):
    with DemoSite() as site:
        async def script(person: Person, page, browser) -> None:
            await person.act(page, page.get_by_role("button", name="Like").click)

            async def typing():
                await page.get_by_role("textbox", name="Note").click()
                await page.keyboard.type("hello", delay=15)
                await page.keyboard.press("Enter")
            await person.act(page, typing)

            async def secret():
                await page.get_by_role("textbox", name="PIN").click()
                await page.keyboard.type("s3cr3t-pin", delay=15)
            await person.act(page, secret)
            await person.act(page, lambda: page.keyboard.press("Escape"))

            async def scrolling():
                await page.mouse.move(600, 400)
                for _ in range(3):
                    await page.mouse.wheel(0, 200)
            await person.act(page, scrolling)
            await person.act(page, lambda: page.mouse.click(600, 400))  # the empty block
            await person.act(page, page.get_by_role("link", name="Details", exact=True).click)
            await person.act(page, page.go_back)
            await person.act(page, page.go_forward)
            await person.act(page, lambda: page.goto(site.url + "/?via=bar"))
            await person.act(page, page.get_by_role("link", name="Details in a new tab").click)
            popup = await person.site(exclude={page})
            await person.act(page, page.get_by_role("button", name="Like").click)
            await person.act(page, popup.close)

            async def outside():
                with contextlib.suppress(Exception):  # the browser refuses it, as it should
                    await page.goto(f"http://localhost:{site.port}/")
            await person.act(page, outside)
            panel = await person.panel()
            await panel.locator("#answer").click()
            await panel.keyboard.type("42")
            await page.keyboard.press("Control+Shift+Enter")

        with _record(tmp_path, site, script) as store:
            (traj,) = list(store.iter_trajectories())
            folder = store.trajectory_dir(traj.trajectory_id)
            folder_bytes = b"".join(p.read_bytes() for p in folder.iterdir())
    kinds = [s.action.kind if s.action else None for s in traj.steps]
    assert kinds == [K.CLICK, K.TYPE, K.TYPE, K.PRESS, K.SCROLL, None, K.CLICK, K.GO_BACK,
                     K.GO_FORWARD, K.GOTO, K.CLICK, K.TAB_FOCUS, K.CLICK, K.TAB_FOCUS,
                     K.CLOSE_TAB, K.GOTO, K.STOP], [s.action for s in traj.steps]
    steps = traj.steps
    assert steps[1].action.value == "hello" and steps[1].action.press_enter
    assert steps[2].action.value == "" and "password" in steps[2].error
    assert steps[3].action.value == "Escape" and steps[4].action.value == "down"
    assert "no element" in steps[5].error
    assert steps[9].action.value == site.url + "/?via=bar"
    assert steps[11].action.tab_index == 0 and steps[13].action.tab_index == 1
    assert "outside the allowlist" in steps[15].error
    assert steps[16].action.value == "42" and traj.answer == "42"
    assert traj.termination == "stop" and traj.agent == "human"
    assert traj.blocked_requests and "blocked_requests" not in traj.metadata
    # Each action is on the observation before it: the back step saw the details page.
    assert steps[7].observation.url.endswith("/details")
    # Back in tab 0 with no word from the browser: the click is on what tab 0 last showed.
    assert steps[12].observation.url.endswith("/?via=bar") and steps[12].error is None
    assert b"s3cr3t-pin" not in folder_bytes


def test_browser_closed_mid_task_keeps_the_recording(tmp_path):
    with DemoSite() as site:
        async def script(person: Person, page, browser) -> None:
            await person.act(page, page.get_by_role("button", name="Like").click)
            session = await browser.new_browser_cdp_session()
            with contextlib.suppress(Exception):  # the connection may go with it
                await session.send("Browser.close")

        with _record(tmp_path, site, script) as store:
            (traj,) = list(store.iter_trajectories())
    assert traj.termination == "error" and "browser was closed" in traj.error
    assert [s.action.kind for s in traj.steps] == [K.CLICK]
    assert traj.network_trace == "network.har"


def test_a_tab_the_person_opens_is_new_tab(tmp_path):
    with DemoSite() as site:
        async def script(person: Person, page, browser) -> None:
            cdp = await browser.new_browser_cdp_session()
            targets = (await cdp.send("Target.getTargets"))["targetInfos"]
            context_id = next(t["browserContextId"] for t in targets
                              if t["type"] == "page" and t["url"].startswith(site.url))
            created = {}

            async def open_tab():  # what Control+T does: a blank tab, no opener
                created.update(await cdp.send("Target.createTarget", {
                    "url": "about:blank", "browserContextId": context_id}))
            await person.act(page, open_tab)
            await person.act(page, lambda: cdp.send("Target.closeTarget", created))
            await person.finish("ok")

        with _record(tmp_path, site, script) as store:
            (traj,) = list(store.iter_trajectories())
    assert [s.action.kind for s in traj.steps] == [K.NEW_TAB, K.CLOSE_TAB, K.STOP]
    assert traj.steps[1].observation.url == "about:blank"
    assert len(traj.steps[1].observation.tabs) == 2 and traj.answer == "ok"
    assert len(traj.steps[2].observation.tabs) == 1


def test_a_killed_recorder_leaves_its_steps_to_the_next_one(tmp_path):
    """SIGKILL mid-task: nothing is stored then; the next `webtraj record` into the run stores
    the journaled steps and HAR as an error trajectory first, then records the task again."""
    with DemoSite() as site:
        port = free_port()
        proc = start_recorder(["--url", site.url + "/", "--intent", "Like the demo page",
                               "--out", str(tmp_path / "demos")], port, tmp_path / "killed.log")
        try:
            async def act_then_die() -> None:
                async with async_playwright() as pw:
                    person = Person(await attach(pw, port, proc))
                    page = await person.start("Like the demo")
                    await person.act(page, page.get_by_role("button", name="Like").click)
                    await person.act(page, page.get_by_role("link", name="Details",
                                                             exact=True).click)
                    proc.send_signal(signal.SIGKILL)
                    proc.wait(30)
            asyncio.run(act_then_die())
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # The kill stored nothing: a run is made only with its first trajectory.
        assert not (tmp_path / "demos" / "run.json").exists()
        assert not list((tmp_path / "demos").glob("trajectories/*"))

        async def finish(person: Person, page, browser) -> None:
            await person.finish("again")

        with _record(tmp_path, site, finish) as store:
            trajs = sorted(store.iter_trajectories(), key=lambda t: t.trial)
            har = store.trajectory_dir(trajs[0].trajectory_id) / "network.har"
            har_text = har.read_text() if har.exists() else ""
    killed, again = trajs
    assert killed.trial == 0 and killed.termination == "error"
    assert "recorder ended before the task was finished" in killed.error
    assert [s.action.kind for s in killed.steps] == [K.CLICK, K.CLICK], killed.steps
    assert killed.steps[1].observation.url == site.url + "/"
    assert killed.network_trace == "network.har" and "/details" in har_text
    assert again.trial == 1 and again.termination == "stop" and again.answer == "again"


def test_a_second_recorder_into_the_same_run_is_refused(tmp_path):
    with DemoSite() as site:
        async def second_then_finish(person: Person, page, browser) -> None:
            res = await asyncio.to_thread(run_cli, "record", "--url", site.url + "/",
                                          "--intent", "Other", "--out", str(tmp_path / "demos"),
                                          "--headless")
            assert res.returncode == 2, res.stdout + res.stderr
            said = " ".join((res.stdout + res.stderr).split())
            # One writer per run: the refusal names the holder (this recorder).
            assert "the run is being written by process" in said and "webtraj record" in said \
                and "one writer per run" in said and "Traceback" not in res.stderr
            await person.finish("done")

        with _record(tmp_path, site, second_then_finish) as store:
            (traj,) = list(store.iter_trajectories())
    assert traj.termination == "stop" and traj.answer == "done"
