"""Every action kind against real pages; failures come back as the step's error."""


import pytest
from test_observe import line_id

from webtraj.model import Action, ActionKind, ElementTarget, parse_action

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_form_by_ids(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/form"))
    city = line_id(obs.axtree, "textbox", "City")
    guests = line_id(obs.axtree, "combobox", "Guests")
    pets = line_id(obs.axtree, "checkbox", "Pets allowed")
    hover = line_id(obs.axtree, "button", "Hover me")
    for text in (f"type [{city}] [Lisbon] [0]", f"select [{guests}] [Three]", f"click [{pets}]",
                 f"hover [{hover}]"):
        r = await env.step(parse_action(text))
        assert r.error is None, (text, r.error)
    assert "[paragraph] [hovered]" in r.observation.axtree
    assert "[option] [Three] [selected]" in r.observation.axtree
    assert f"[{pets}] [checkbox] [Pets allowed] [checked" in r.observation.axtree
    r = await env.step(parse_action(f"type [{city}] [Porto]"))  # Enter submits the form
    assert r.error is None
    assert r.observation.url == site.url("/results?city=Porto&guests=3&pets=yes")
    assert "city=Porto, guests=3, pets=yes" in r.observation.axtree


async def test_reference_actions_by_role_and_name(make_env, site):
    env = make_env()
    await env.reset(site.url("/form"))
    steps = [
        Action(kind=ActionKind.TYPE, target=ElementTarget(role="textbox", name="City"),
               value="Rome", press_enter=False),
        Action(kind=ActionKind.SELECT, target=ElementTarget(role="combobox", name="Guests"),
               value="2"),
        Action(kind=ActionKind.CLICK, target=ElementTarget(role="button", name="Search")),
    ]
    for action in steps:
        r = await env.step(action)
        assert r.error is None, r.error
    assert r.observation.url == site.url("/results?city=Rome&guests=2")
    r = await env.step(Action(kind=ActionKind.CLICK,
                              target=ElementTarget(role="button", name="Nope")))
    assert r.error == "no button named 'Nope' on the page"


async def test_reference_action_reaches_into_iframes(make_env, site):
    env = make_env()
    await env.reset(site.url("/iframe"))
    r = await env.step(Action(kind=ActionKind.CLICK,
                              target=ElementTarget(role="button", name="Inner button")))
    assert r.error is None and "[paragraph] [inner clicked]" in r.observation.axtree


async def test_aria_combobox_select(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/combobox"))
    cb = line_id(obs.axtree, "combobox", "Destination")
    r = await env.step(parse_action(f"select [{cb}] [Rome]"))
    assert r.error is None
    assert "[paragraph] [chose Rome]" in r.observation.axtree
    r = await env.step(parse_action(f"select [{cb}] [Atlantis]"))
    assert "no option named 'Atlantis'" in r.error


async def test_autocomplete_select_types_then_picks(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/autocomplete"))
    dest = line_id(obs.axtree, "combobox", "Destination")
    r = await env.step(parse_action(f"select [{dest}] [Porto]"))
    assert r.error is None, r.error
    assert "[paragraph] [picked Porto]" in r.observation.axtree


async def test_failures_are_returned_not_raised(make_env, site):
    env = make_env(action_timeout_ms=600)
    obs = await env.reset(site.url("/form"))
    r = await env.step(parse_action("click [9999]"))
    assert r.error.startswith("no element with id [9999]")
    assert r.observation.last_action_error == r.error
    disabled = line_id(obs.axtree, "button", "Unavailable")
    r = await env.step(parse_action(f"click [{disabled}]"))
    # It gave up at the configured bound (the outcome, not how long it took).
    assert r.error and "click failed" in r.error and "Timeout 600ms exceeded" in r.error
    heading = line_id(obs.axtree, "heading", "Find a stay")
    r = await env.step(parse_action(f"type [{heading}] [x]"))
    assert r.error and "not a text field" in r.error
    r = await env.step(parse_action("tab_focus [5]"))
    assert r.error == "no tab 5; open tabs are 0..0"
    r = await env.step(parse_action("go_forward"))
    assert r.error == "no next page in this tab's history"
    r = await env.step(parse_action("stop [done]"))
    assert r.done and r.answer == "done" and r.error is None


async def test_navigation_keys_and_scroll(make_env, site):
    env = make_env()
    await env.reset(site.url("/form"))
    r = await env.step(parse_action(f"goto [{site.url('/other')}]"))
    assert r.error is None and r.observation.title == "Other page"
    r = await env.step(parse_action("go_back"))
    assert r.error is None and r.observation.url == site.url("/form")
    r = await env.step(parse_action("go_forward"))
    assert r.observation.url == site.url("/other")
    r = await env.step(parse_action("goto [/form]"))  # relative to the current page
    assert r.observation.url == site.url("/form")
    r = await env.step(parse_action("press [esc]"))
    assert r.error is None and r.observation.title == "Escaped"
    await env.reset(site.url("/scroll"))
    page = await env.tabs.current()
    r = await env.step(parse_action("scroll [down]"))
    y = await page.evaluate("scrollY")
    assert r.error is None and y > 300
    await env.step(parse_action("scroll [up]"))
    assert await page.evaluate("scrollY") < y


async def test_tabs_and_popups(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/popup"))
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'link', 'Open in new tab')}]"))
    assert r.error is None
    assert [(t.url, t.active) for t in r.observation.tabs] == [
        (site.url("/popup"), False), (site.url("/other"), True)]
    assert r.observation.title == "Other page"
    r = await env.step(parse_action("tab_focus [0]"))
    assert r.observation.url == site.url("/popup")
    opener = line_id(r.observation.axtree, "button", "Open popup")
    r = await env.step(parse_action(f"click [{opener}]"))
    assert len(r.observation.tabs) == 3 and r.observation.title == "Combobox"
    r = await env.step(parse_action("close_tab"))
    assert len(r.observation.tabs) == 2 and r.observation.tabs[-1].active
    r = await env.step(parse_action("new_tab"))
    assert r.observation.url == "about:blank" and len(r.observation.tabs) == 3
    for _ in range(3):
        r = await env.step(parse_action("close_tab"))
    # Closing the last tab leaves one blank tab, never none.
    assert [t.url for t in r.observation.tabs] == ["about:blank"]


async def test_dialogs_are_answered_and_recorded(make_env, site):
    env = make_env(dialog_policy="dismiss")
    obs = await env.reset(site.url("/dialogs"))
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Alert me')}]"))
    assert r.error is None
    assert [(d.kind, d.message, d.accepted) for d in r.observation.dialogs] == [
        ("alert", "hello from alert", True)]
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Confirm me')}]"))
    assert [(d.kind, d.accepted) for d in r.observation.dialogs] == [("confirm", False)]
    assert "[paragraph] [no]" in r.observation.axtree
    result = await env.close()
    assert [d.kind for d in result.dialogs] == ["alert", "confirm"]


async def test_step_waits_for_network_to_settle(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/slow"))
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Load data')}]"))
    assert "[paragraph] [slow data arrived]" in r.observation.axtree
    assert r.duration_s >= 0.3


async def test_step_settles_on_page_activity_not_on_time(make_env, site):
    """Each result is drawn after something a fixed quiet window misses (see SETTLE). The
    bound is far above what settling takes, so a loaded machine gives the same results."""
    env = make_env(settle_timeout_ms=30_000)
    obs = await env.reset(site.url("/settle"))
    r = await env.step(parse_action(
        f"click [{line_id(obs.axtree, 'button', 'Fetch then timer')}]"))
    assert "A: slow data arrived" in r.observation.axtree
    r = await env.step(parse_action(
        f"type [{line_id(r.observation.axtree, 'textbox', 'Debounced')}] [x] [0]"))
    assert "B: slow data arrived" in r.observation.axtree
    r = await env.step(parse_action(
        f"click [{line_id(r.observation.axtree, 'button', 'XHR then frame')}]"))
    assert "C: slow data arrived" in r.observation.axtree
    # A page that never stops polling costs the bound, never a hang; the episode goes on.
    env = make_env(settle_timeout_ms=2_000)
    obs = await env.reset(site.url("/settle"))
    r = await env.step(parse_action(f"click [{line_id(obs.axtree, 'button', 'Poll forever')}]"))
    assert r.error is None
    r = await env.step(parse_action(
        f"click [{line_id(r.observation.axtree, 'button', 'Fetch then timer')}]"))
    assert r.error is None and r.observation.axtree


async def test_screenshot_formats(make_env, site):
    shots = {}
    for fmt in ("png", "jpeg", "webp"):
        env = make_env(screenshot_format=fmt, screenshot_quality=70)
        shots[fmt] = (await env.reset(site.url("/form"))).screenshot_png
    assert shots["png"].startswith(b"\x89PNG\r\n\x1a\n")
    assert shots["jpeg"].startswith(b"\xff\xd8\xff")
    assert shots["webp"][:4] == b"RIFF" and shots["webp"][8:12] == b"WEBP"
    # The PNG is the viewport, pixel for pixel.
    from webtraj.llm.images import image_size

    assert image_size(shots["png"]) == (1280, 720)
