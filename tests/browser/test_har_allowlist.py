"""HAR recording (plain http on loopback, written even when an episode fails) and the origin
allowlist (other origins, file:// and outside `goto` blocked before the network, recorded)."""

import asyncio
import json
import socket
import threading
import time
from urllib.parse import quote

import pytest
from test_observe import line_id

from webtraj.browser.env import BrowserEnv
from webtraj.model import parse_action

pytestmark = pytest.mark.asyncio(loop_scope="session")


def har_urls(path) -> list[str]:
    return [e["request"]["url"] for e in json.loads(path.read_text())["log"]["entries"]]


async def test_har_records_plain_http_on_loopback(make_env, site, tmp_path):
    har = tmp_path / "net" / "network.har"
    env = make_env(har_path=har)
    obs = await env.reset(site.url("/form"))
    city = line_id(obs.axtree, "textbox", "City")
    await env.step(parse_action(f"type [{city}] [Paris]"))
    result = await env.close()
    assert result.har_path == str(har) and result.steps == 1 and result.error is None
    urls = har_urls(har)
    assert site.url("/form") in urls
    assert site.url("/results?city=Paris&guests=1") in urls
    assert all(u.startswith("http://127.0.0.1:") for u in urls)


async def test_har_is_written_when_the_episode_raises(browser, site, tmp_path):
    from webtraj.browser.config import EnvConfig

    har = tmp_path / "network.har"
    env = BrowserEnv(browser, EnvConfig(har_path=har))
    with pytest.raises(RuntimeError, match="agent exploded"):
        async with env:
            await env.reset(site.url("/form"))
            raise RuntimeError("agent exploded")
    assert site.url("/form") in har_urls(har)
    assert env.result is not None and "agent exploded" in env.result.error


async def test_har_is_written_when_a_hung_step_is_cancelled(make_env, site, tmp_path):
    har = tmp_path / "network.har"
    env = make_env(har_path=har)
    obs = await env.reset(site.url("/slow"))
    load = line_id(obs.axtree, "button", "Load data")
    try:
        async with asyncio.timeout(0.1):  # the per-episode timeout of an executor
            await env.step(parse_action(f"click [{load}]"))
    except TimeoutError:
        pass
    finally:
        await env.close()
    assert site.url("/slow") in har_urls(har)


async def test_har_is_written_when_chromium_dies_mid_episode(site, tmp_path):
    """A browser crash (the process is killed) still leaves the HAR of what happened."""
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium
    from webtraj.browser.config import EnvConfig

    har = tmp_path / "network.har"
    async with async_playwright() as pw:
        own = await launch_chromium(pw)
        env = BrowserEnv(own, EnvConfig(har_path=har, action_timeout_ms=1_000,
                                        navigation_timeout_ms=2_000))
        try:
            await env.reset(site.url("/form"))
            page = await env.tabs.current()
            cdp = await page.context.new_cdp_session(page)
            with pytest.raises(Exception):  # noqa: B017 (any error: the browser is gone)
                await cdp.send("Browser.crash")
            await env.step(parse_action("goto [/other]"))
        except Exception:  # noqa: S110 (the crash may surface here or not at all)
            pass
        finally:
            result = await env.close()
    assert har.exists(), result
    assert site.url("/form") in har_urls(har)
    assert result.har_path == str(har) and "browser died" in (result.error or "")


async def test_external_script_and_image_are_blocked(make_env, site):
    env = make_env()
    t0 = time.monotonic()
    obs = await env.reset(site.url("/external"))
    assert time.monotonic() - t0 < 5  # no connection attempt to wait for
    assert "[heading] [Has an external script]" in obs.axtree
    blocked = {(b.url, b.reason, b.resource_type) for b in env.blocked}
    assert ("http://198.51.100.1/x.js", "origin", "script") in blocked
    assert ("http://203.0.113.9/pixel.png", "origin", "image") in blocked


async def test_goto_outside_the_allowlist_is_blocked(make_env, site, other_site, tmp_path):
    har = tmp_path / "network.har"
    env = make_env(har_path=har)
    await env.reset(site.url("/form"))
    # A URL whose host or port cannot be parsed (a model's garbage) is refused like any other
    # URL outside the allowlist: the agent's failure, never an infrastructure error.
    for url in ("http://203.0.113.5/", other_site.url("/form"), "file:///etc/passwd",
                "javascript:fetch('http://203.0.113.5/')", "http://[364]/",
                "http://127.0.0.1:99999/"):
        r = await env.step(parse_action(f"goto [{url}]"))
        assert r.error and r.error.startswith(f"goto blocked: {url}")
        assert r.observation.url == site.url("/form")
    page = await env.tabs.current()
    status = await page.evaluate(
        "(u) => fetch(u).then(() => 'fetched', e => 'failed: ' + e)", other_site.url("/other"))
    assert status.startswith("failed")
    result = await env.close()
    reasons = [(b.url, b.reason) for b in result.blocked]
    assert reasons == [("http://203.0.113.5/", "goto"), (other_site.url("/form"), "goto"),
                       ("file:///etc/passwd", "goto"),
                       ("javascript:fetch('http://203.0.113.5/')", "goto"),
                       ("http://[364]/", "goto"), ("http://127.0.0.1:99999/", "goto"),
                       (other_site.url("/other"), "origin")]
    assert sum(other_site.hits.values()) == 0  # nothing reached the other origin


async def test_explicit_allowlist_admits_several_origins(make_env, site, other_site):
    env = make_env(allowed_origins=(site.origin, other_site.origin))
    await env.reset(site.url("/form"))
    r = await env.step(parse_action(f"goto [{other_site.url('/other')}]"))
    assert r.error is None and r.observation.title == "Other page"
    assert env.blocked == []


async def test_websocket_to_another_origin_is_blocked(make_env, site):
    env = make_env()
    await env.reset(site.url("/other"))
    page = await env.tabs.current()
    outcome = await page.evaluate("""() => new Promise(done => {
        const ws = new WebSocket('ws://203.0.113.7:9/feed');
        ws.onopen = () => done('open'); ws.onclose = (e) => done('closed ' + e.code);
        setTimeout(() => done('timeout'), 60000); })""")  # a bound against a hang only
    assert outcome.startswith("closed")
    assert [(b.url, b.resource_type) for b in env.blocked] == [
        ("ws://203.0.113.7:9/feed", "websocket")]


def redirect_to(site, target: str) -> str:
    return site.url("/redirect?to=" + quote(target, safe=""))


async def test_redirect_to_another_origin_is_blocked_and_recorded(make_env, site, other_site):
    """A 302 from the allowed origin to another one (directly, or after an allowed hop) is a
    request like any other: refused before it is sent, recorded, never observed."""
    other_site.hits.clear()
    env = make_env()
    await env.reset(site.url("/form"))
    direct = redirect_to(site, other_site.url("/other"))
    chained = redirect_to(site, redirect_to(site, other_site.url("/other?hop=2")))
    for url in (direct, chained):
        r = await env.step(parse_action(f"goto [{url}]"))
        assert "Other page" not in r.observation.title
        assert not r.observation.url.startswith(other_site.origin)
    page = await env.tabs.current()
    await page.goto(site.url("/form"))
    status = await page.evaluate(
        "(u) => fetch(u).then(r => 'fetched ' + r.status, e => 'failed')",
        redirect_to(site, other_site.url("/other?by=fetch")))
    assert status == "failed"
    await page.evaluate("""(u) => new Promise(done => { const img = new Image();
        img.onload = img.onerror = () => done(); img.src = u; })""",
                        redirect_to(site, other_site.url("/pixel.png")))
    result = await env.close()
    assert sum(other_site.hits.values()) == 0  # the other server received nothing
    # Navigations say "redirect"; Chromium reports a fetch's redirect hop as a new request.
    assert [(b.url, b.reason) for b in result.blocked] == [
        (other_site.url("/other"), "redirect"), (other_site.url("/other?hop=2"), "redirect"),
        (other_site.url("/other?by=fetch"), "origin"), (other_site.url("/pixel.png"), "redirect")]


async def test_popup_redirect_to_another_origin_is_blocked(make_env, site, other_site):
    """A popup's first navigation starts before its page can be guarded: its redirect hop is
    refused at the network level (the allowlist's proxy) and recorded."""
    other_site.hits.clear()
    env = make_env()
    await env.reset(site.url("/form"))
    page = await env.tabs.current()
    async with page.context.expect_page() as opened:
        await page.evaluate("(u) => window.open(u)", redirect_to(site, other_site.url("/other")))
    popup = await opened.value
    await popup.wait_for_load_state()
    assert await popup.title() != "Other page"
    assert "blocked by the webtraj origin allowlist" in await popup.content()
    result = await env.close()
    assert sum(other_site.hits.values()) == 0
    blocked = [(b.url, b.reason) for b in result.blocked]
    assert blocked[0] == (other_site.url("/other"), "network")
    assert all(url.startswith(other_site.origin) for url, _ in blocked)  # (+ its favicon)


async def test_allowed_redirect_is_followed(make_env, site, other_site):
    env = make_env(allowed_origins=(site.origin, other_site.origin))
    await env.reset(site.url("/form"))
    r = await env.step(parse_action(f"goto [{redirect_to(site, other_site.url('/other'))}]"))
    assert r.error is None and r.observation.title == "Other page"
    assert env.blocked == []


async def test_resource_hints_open_no_connection_to_a_blocked_origin(make_env, site):
    """preconnect / dns-prefetch / prefetch and speculation rules (prefetch, prerender: these
    never pass through request interception) towards another port: a raw listener there must
    not see a single connection; the speculative requests are recorded."""
    accepted: list[str] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            accepted.append("connection")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        env = make_env()
        obs = await env.reset(site.url(f"/hints?port={port}"))
        page = await env.tabs.current()
        await page.hover(f"a[href='http://127.0.0.1:{port}/next']")  # hover-preconnect
        await page.wait_for_timeout(1500)  # time for any speculative connection to show
        assert "[heading] [Hints]" in obs.axtree
        blocked = {(b.url, b.reason) for b in (await env.close()).blocked}
    finally:
        stop.set()
        thread.join()
        listener.close()
    assert accepted == []
    assert (f"http://127.0.0.1:{port}/speculated", "network") in blocked
    assert (f"http://127.0.0.1:{port}/prefetched", "origin") in blocked


async def test_har_journal_holds_no_credential(make_env, site, tmp_path):
    """The request journal is written as requests finish (it survives a killed worker):
    credential headers and token parameters are redacted before they reach it."""
    from webtraj.browser.har_recorder import har_journal

    har = tmp_path / "network.har"
    env = make_env(har_path=har)
    await env.reset(site.url("/form"))
    page = await env.tabs.current()
    status = await page.evaluate("""() => fetch('/other?access_token=tok-98765abcdef', {
        headers: {'X-Auth-Token': 'xat-12345abcdef', 'Authorization': 'Bearer brr-55555abcdef'}
        }).then(r => r.status)""")
    assert status == 200
    # The entry is journaled once Playwright reports the request finished (a condition, with
    # a bound far above what it takes on a loaded machine).
    deadline = asyncio.get_running_loop().time() + 60
    while "/other?" not in har_journal(har).read_text() and \
            asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    journal = har_journal(har).read_text()
    await env.close()
    assert "/other?access_token=[REDACTED]" in journal, journal
    for secret in ("tok-98765abcdef", "xat-12345abcdef", "brr-55555abcdef"):
        assert secret not in journal
