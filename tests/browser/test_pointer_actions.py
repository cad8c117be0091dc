"""Issue 30: actions at coordinates, keyboard typing, and ids for elements with no role,
carried out with real input events in Chromium and recorded with what was under the point."""

import re

import pytest

from webtraj.model import Action, parse_action

pytestmark = pytest.mark.asyncio(loop_scope="session")


def mark_id(axtree: str, tag: str, needle: str = "") -> str:
    """The id of the first marked (role-less) element line with that tag and text."""
    for line in axtree.splitlines():
        m = re.match(r"\[(n\d+)\] \[" + re.escape(tag) + r"\] \[([^\]]*)\]", line)
        if m and needle in line:
            return m.group(1)
    raise AssertionError(f"no marked {tag} with {needle!r} in:\n{axtree}")


def log_line(axtree: str) -> str:
    return next(line for line in axtree.splitlines() if "clicked" in line or "drew" in line
                or "hovered" in line or "key " in line or "none" in line)


async def test_roleless_elements_get_ids_boxes_and_act(make_env, site):
    env = make_env()
    obs = await env.reset(site.url("/pointer"))
    pad = mark_id(obs.axtree, "div", "color=rgb(255, 0, 0)")
    prop = mark_id(obs.axtree, "div", "color=rgb(0, 0, 255)")
    hov = mark_id(obs.axtree, "div", "color=rgb(0, 128, 0)")
    dot = mark_id(obs.axtree, "circle", "fill=rgb(128, 0, 128)")
    key = mark_id(obs.axtree, "span", "Focus me")
    canvas = mark_id(obs.axtree, "canvas")
    assert {pad, prop, hov, dot, key, canvas} <= set(obs.element_ids)
    assert obs.element_boxes[pad] == (0.0, 0.0, 200.0, 100.0)
    assert "[focusable" in next(line for line in obs.axtree.splitlines() if line.startswith(
        f"[{key}]"))
    for text, expected in ((f"click [{pad}]", "pad clicked at 100,50"),
                           (f"click [{prop}]", "prop clicked"), (f"hover [{hov}]", "hovered"),
                           (f"click [{dot}]", "dot clicked")):
        r = await env.step(parse_action(text))
        assert r.error is None, (text, r.error)
        assert expected in r.observation.axtree, (text, r.observation.axtree)
    # Ids stay with their elements from one observation to the next.
    assert mark_id(r.observation.axtree, "div", "color=rgb(255, 0, 0)") == pad
    r = await env.step(parse_action(f"click [{key}]"))
    r = await env.step(parse_action("press [x]"))
    assert "key x" in r.observation.axtree


async def test_marking_off_leaves_the_tree_alone(make_env, site):
    env = make_env(mark_elements=False)
    obs = await env.reset(site.url("/pointer"))
    assert not re.search(r"^\[n\d+\]", obs.axtree, re.M)
    assert obs.mouse is None


async def test_mouse_actions_are_real_events_and_record_the_point(make_env, site):
    env = make_env()
    await env.reset(site.url("/pointer"))
    r = await env.step(parse_action("mouse_click [30] [40]"))
    assert r.error is None and "pad clicked at 30,40" in r.observation.axtree
    assert r.observation.mouse == (30.0, 40.0)
    (pointed,) = r.pointed
    assert (pointed.tag, pointed.x, pointed.y) == ("div", 30.0, 40.0)
    assert pointed.element_id is not None and pointed.element_id.startswith("n")
    assert r.element_box is not None and (r.element_box.width, r.element_box.height) == (
        200.0, 100.0)
    r = await env.step(parse_action("mouse_dblclick [30] [40]"))
    assert "pad double-clicked" in r.observation.axtree
    r = await env.step(parse_action("mouse_move [330] [30]"))
    assert "hovered" in r.observation.axtree and r.observation.mouse == (330.0, 30.0)
    # A drag presses, moves in steps the page sees, and releases.
    r = await env.step(parse_action("mouse_drag [21] [301] [221] [351]"))
    assert r.error is None, r.error
    m = re.search(r"drew from 20,40 to 220,90 in (\d+) moves", r.observation.axtree)
    assert m and int(m.group(1)) >= 5, r.observation.axtree
    assert [p.tag for p in r.pointed] == ["canvas", "canvas"]
    r = await env.step(Action(kind="mouse_click", x=5000, y=10))
    assert r.error is not None and "outside the viewport" in r.error


async def test_keyboard_type_types_into_the_focused_element(make_env, site):
    from test_observe import line_id

    env = make_env()
    obs = await env.reset(site.url("/form"))
    city = line_id(obs.axtree, "textbox", "City")
    await env.step(parse_action(f"click [{city}]"))
    r = await env.step(parse_action("keyboard_type [Lisbon [old town]]"))
    assert r.error is None
    assert "value=Lisbon \\[old town\\]" in r.observation.axtree


async def test_only_a_pointer_the_episode_moved_is_recorded(make_env, site):
    """The headless shell shows each new page a mouse at (0, 0) that no one moved; an
    observation records the mouse only once an action of the episode has moved it."""
    env = make_env()
    await env.reset(site.url("/pointer"))
    page = await env.tabs.current()
    await page.mouse.move(0, 0)  # the browser's own move, as the shell makes it
    obs = await env.observe()
    assert obs.mouse is None
    r = await env.step(parse_action("press [Tab]"))  # the keyboard moves no pointer
    assert r.observation.mouse is None
    r = await env.step(parse_action("mouse_move [30] [40]"))
    assert r.observation.mouse == (30.0, 40.0)
