"""Input events -> actions, without a browser: typing folds into one `type`, Enter after
typing is its press_enter, a click that only focuses a field is folded into the typing,
wheel bursts are one scroll, targets resolve to the observation's ids (role + name + nth),
and history moves are classified from Chromium's navigation history."""

from webtraj.model.action import ActionKind
from webtraj.record.builder import ActionBuilder, Seen
from webtraj.record.events import ElementInfo, PageEvent
from webtraj.record.history import HistoryState, classify
from webtraj.record.targets import find_element

TREE = "\n".join([
    "[1] [RootWebArea] [Demo]",
    "\t[5] [textbox] [Where to?]",
    "\t[6] [button] [Done]",
    "\t[7] [button] [Done]",
    "\t[8] [combobox] [Cabin class]",
    "\t[9] [link] [Hotel Paris Center & Spa]",
])
SEEN = Seen(number=0, axtree=TREE, taken_at=100.0)
FIELD = ElementInfo(role="textbox", name="Where to?", tag="input", input_type="text")


def _collect():
    out = []
    return out, ActionBuilder(out.append)


def _ev(type_, t, **kw):
    return PageEvent(type=type_, time=t, **kw)


def test_typing_folds_into_one_type_with_enter():
    out, b = _collect()
    b.event(_ev("click", 101, target=FIELD, x=5, y=5), SEEN)
    for i, text in enumerate(("P", "Pa", "Par", "Pa", "Paris")):
        b.event(_ev("input", 102 + i, target=FIELD, value=text), SEEN)
        b.event(_ev("key", 102.1 + i, key="a", printable=True, in_text=True), SEEN)
    b.event(_ev("key", 108, key="Backspace", in_text=True), SEEN)
    b.event(_ev("key", 109, key="Enter", in_text=True), SEEN)
    (rec,) = out
    a = rec.action
    assert (a.kind, a.element_id, a.value, a.press_enter) == (ActionKind.TYPE, "5", "Paris", True)
    assert a.target.role == "textbox" and a.target.name == "Where to?"
    assert rec.started_at == 102  # the first keystroke, not the focusing click


def test_focus_click_without_typing_is_a_click_and_other_keys_are_presses():
    out, b = _collect()
    b.event(_ev("click", 101, target=FIELD), SEEN)
    b.event(_ev("key", 102, key="ArrowDown", in_text=True), SEEN)
    b.event(_ev("key", 103, key="Escape"), SEEN)
    assert [(r.action.kind, r.action.value) for r in out] == [
        (ActionKind.CLICK, None), (ActionKind.PRESS, "ArrowDown"), (ActionKind.PRESS, "Escape")]


def test_select_changes_fold_and_scroll_bursts_merge():
    out, b = _collect()
    sel = ElementInfo(role="combobox", name="Cabin class", tag="select")
    b.event(_ev("select", 101, target=sel, value="Premium economy"), SEEN)
    b.event(_ev("select", 101.2, target=sel, value="Business"), SEEN)
    for t in (102, 102.3, 102.6):
        b.event(_ev("scroll", t, value="down"), SEEN)
    b.event(_ev("scroll", 102.8, value="up"), SEEN)
    b.event(_ev("scroll", 105, value="up"), SEEN)
    assert [(r.action.kind, r.action.value) for r in out] == [
        (ActionKind.SELECT, "Business"), (ActionKind.SCROLL, "down"), (ActionKind.SCROLL, "up"),
        (ActionKind.SCROLL, "up")]
    assert out[0].action.element_id == "8"


def test_click_targets_nth_loose_names_and_nothing():
    out, b = _collect()
    b.event(_ev("click", 101, target=ElementInfo(role="button", name="Done", nth=1)), SEEN)
    b.event(_ev("click", 102, target=ElementInfo(role="link", name="Hotel Paris Center")),
            SEEN)
    b.event(_ev("click", 103, target=ElementInfo(role="button", name="Gone")), SEEN)
    b.event(_ev("click", 104, target=ElementInfo(role="generic", raw_tag="div"), x=3, y=4),
            SEEN)
    assert [r.action.element_id if r.action else None for r in out] == ["7", "9", None, None]
    assert out[2].action.target.name == "Gone" and "not in the observation" in out[2].error
    assert out[3].action is None and "at (3, 4) on no element" in out[3].error


def test_find_element_prefers_exact_then_folded():
    assert find_element(TREE, ElementInfo(role="textbox", name="where  TO?")) == "5"
    assert find_element(TREE, ElementInfo(role="button", name="Done", nth=5)) == "6"
    assert find_element(TREE, ElementInfo(role="checkbox", name="Done")) is None


def _history(index, entries):
    return {"currentIndex": index, "entries": [
        {"id": i, "url": u, "transitionType": t} for i, u, t in entries]}


def test_history_moves():
    before = HistoryState(index=2, ids=[1, 2, 3])
    entries = [(1, "/a", "typed"), (2, "/b", "link"), (3, "/c", "link")]
    move, _ = classify(before, _history(0, entries), after_input=False, at=1)
    assert (move.kind, move.steps, move.url) == ("back", 2, "/a")
    move, _ = classify(HistoryState(index=0, ids=[1, 2, 3]), _history(1, entries),
                       after_input=False, at=1)
    assert (move.kind, move.steps) == ("forward", 1)
    typed = [*entries, (4, "/d", "typed")]
    move, after = classify(before, _history(3, typed), after_input=False, at=1)
    assert (move.kind, move.url, after.index) == ("goto", "/d", 3)
    move, _ = classify(before, _history(3, typed), after_input=True, at=1)
    assert move.kind == "follow"
    move, _ = classify(before, _history(3, [*entries, (4, "/d", "link")]), after_input=False,
                       at=1)
    assert move.kind == "follow"


def test_password_values_are_not_recorded():
    out, b = _collect()
    secret = ElementInfo(role="textbox", name="Password", tag="input", input_type="password")
    b.event(_ev("input", 101, target=secret, value=""), SEEN)
    b.flush()
    (rec,) = out
    assert rec.action.value == "" and "password" in rec.error


def test_password_values_are_masked_in_the_tree():
    from webtraj.browser.passwords import MASK, mask_values

    tree = "[4] [textbox] [Note] [value=hi]\n[5] [textbox] [PIN] [focused, value=a,b]x]"
    masked = mask_values(tree, {("textbox", "PIN")})
    assert masked.splitlines() == ["[4] [textbox] [Note] [value=hi]",
                                   f"[5] [textbox] [PIN] [focused, value={MASK}]"]


def test_drags_and_roleless_clicks_become_replayable_actions():
    """Issue 30: a drag is its pointer path (`mouse_drag`), and a click on an element without
    a role acts on the id the observation marked it with."""
    seen = Seen(number=0, axtree=TREE + "\n[n4] [div] [] [clickable, color=rgb(255, 0, 0)]",
                taken_at=100.0)
    box = ElementInfo(role="generic", raw_tag="div", tag="div", mark="n4",
                      box=(10.0, 20.0, 30.0, 30.0))
    out, b = _collect()
    b.event(_ev("drag", 101, target=box, x=25, y=35, to_x=125.5, to_y=40), seen)
    b.event(_ev("click", 102, target=box, x=25, y=35), seen)
    b.event(_ev("click", 103, target=box.model_copy(update={"mark": "n9"}), x=5, y=5), seen)
    drag, click, nothing = out
    assert drag.action.to_text() == "mouse_drag [25] [35] [125.5] [40]"
    assert drag.element_box.width == 30
    assert click.action.to_text() == "click [n4]" and click.error is None
    # A mark the observation did not show is not guessed at.
    assert nothing.action is None and "no element" in nothing.error


def test_hovers_and_scrolls_at_a_point():
    out, b = _collect()
    done = ElementInfo(role="button", name="Done", nth=1)
    b.event(_ev("hover", 101, target=done, x=40, y=12), SEEN)
    # No id for the element: the pointer's point replays the hover.
    b.event(_ev("hover", 102, target=ElementInfo(role="generic", raw_tag="div"), x=300, y=80),
            SEEN)
    b.event(_ev("scroll", 103, value="down", x=150, y=200), SEEN)
    b.event(_ev("scroll", 103.2, value="down", x=150, y=210), SEEN)  # the same burst
    b.event(_ev("scroll", 103.4, value="down"), SEEN)  # now the page: a new scroll
    texts = [r.action.to_text() for r in out]
    assert texts == ["hover [7]", "mouse_move [300] [80]", "scroll [down] [150] [200]",
                     "scroll [down]"]
