"""Turning a person's input events into webtraj actions, each on the observation before it.

One `type` per field with its final value (and one `select` per run of changes to a
<select>) (keystrokes, deletions and pastes in the field fold
into it; an Enter right after typing becomes its `press_enter`); clicks, select changes and
key presses one action each; a burst of wheel events in one direction one `scroll` (at the
pointer when it scrolled an inner element); a hover on an element that reacts to it one
`hover` (or `mouse_move` to its point when it has no id). Events
arrive with the observation they are attributed to (the last one taken before them), and a
pending `type` keeps the observation taken before its first keystroke."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.trajectory import ElementBox
from webtraj.record.events import ElementInfo, PageEvent
from webtraj.record.targets import find_element

# Keys that edit a text field's value: their effect is in the field's final value.
EDIT_KEYS = frozenset({"Backspace", "Delete", "ArrowLeft", "ArrowRight", "Home", "End",
                       "Control+a", "Control+c", "Control+v", "Control+x", "Control+z",
                       "Meta+a", "Meta+c", "Meta+v", "Meta+x", "Meta+z", "Shift+ArrowLeft",
                       "Shift+ArrowRight", "Shift+Home", "Shift+End", "Space"})
# Roles of fields a click only focuses before typing (the `type` covers the click).
FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
FIELD_TAGS = frozenset({"input", "textarea"})
# Wheel events closer than this (seconds) in one direction are one scroll.
SCROLL_BURST_S = 1.0


@dataclass
class Seen:
    """An observation the recorder took: its number, tree, and when its capture ended."""

    number: int
    axtree: str
    taken_at: float


@dataclass
class Recorded:
    """One step as recorded: the observation it acted on, the action (None for a click on
    nothing) and what the step must say."""

    seen: Seen
    action: Action | None
    started_at: float
    element_box: ElementBox | None = None
    error: str | None = None


@dataclass
class _Typing:
    """A field being typed in (or a select being moved through with the keyboard): one
    action with the final value when the person moves on."""

    seen: Seen
    info: ElementInfo
    value: str
    started_at: float
    kind: ActionKind = ActionKind.TYPE


def _same(a: ElementInfo, b: ElementInfo) -> bool:
    return (a.role, a.name, a.nth) == (b.role, b.name, b.nth)


class ActionBuilder:
    """Feeds `emit` one `Recorded` per action, in the order the person acted."""

    def __init__(self, emit: Callable[[Recorded], None]) -> None:
        self.emit = emit
        self._typing: _Typing | None = None
        self._last_scroll: tuple[str, float] | None = None
        # A click into a text field, held until we know whether typing follows.
        self._focus: tuple[PageEvent, Seen] | None = None

    def event(self, ev: PageEvent, seen: Seen) -> None:
        if ev.type == "key" and ev.in_text and (ev.printable or ev.key in EDIT_KEYS):
            return  # part of typing: the field's final value says it
        focus, self._focus = self._focus, None
        if focus is not None and not (ev.type == "input" and ev.target is not None
                                      and focus[0].target is not None
                                      and _same(focus[0].target, ev.target)):
            self.flush()
            self._element(ActionKind.CLICK, focus[0], focus[0].target, focus[1])
        if (ev.type == "click" and ev.target is not None and ev.target.role in FIELD_ROLES
                and ev.target.tag in FIELD_TAGS):
            if self._typing is None or not _same(self._typing.info, ev.target):
                self.flush()
                self._focus = (ev, seen)
            return
        if ev.type in ("input", "select") and ev.target is not None:
            self._input(ev, ev.target, seen)
        elif ev.type == "click" and ev.target is not None:
            if self._typing is not None and _same(self._typing.info, ev.target):
                return  # moving the caret in the field being typed in
            self.flush()
            self._element(ActionKind.CLICK, ev, ev.target, seen)
        elif ev.type == "drag" and None not in (ev.x, ev.y, ev.to_x, ev.to_y):
            self._drag(ev, seen)
        elif ev.type == "key" and ev.key:
            self._key(ev, seen)
        elif ev.type == "scroll" and ev.value in ("up", "down"):
            self._scroll(ev, seen)
        elif ev.type == "hover" and ev.target is not None:
            self._hover(ev, ev.target, seen)

    def other(self, action: Action, seen: Seen, at: float, error: str | None = None) -> None:
        """An action seen by the browser, not the page: navigation, tabs, the answer."""
        self.flush()
        self._last_scroll = None
        self.emit(Recorded(seen=seen, action=action, started_at=at, error=error))

    def flush(self, press_enter: bool = False) -> None:
        """End the pending `type` (another element is used, or the recording ends)."""
        focus, self._focus = self._focus, None
        if focus is not None and focus[0].target is not None:
            self._element(ActionKind.CLICK, focus[0], focus[0].target, focus[1])
        typing, self._typing = self._typing, None
        if typing is None:
            return
        self._element(typing.kind, None, typing.info, typing.seen, value=typing.value,
                      at=typing.started_at, press_enter=press_enter)

    def _input(self, ev: PageEvent, info: ElementInfo, seen: Seen) -> None:
        kind = ActionKind.SELECT if ev.type == "select" else ActionKind.TYPE
        typing = self._typing
        if typing is not None and typing.kind is kind and _same(typing.info, info):
            typing.value = ev.value or ""
            return
        self.flush()
        self._last_scroll = None
        self._typing = _Typing(seen=seen, info=info, value=ev.value or "", started_at=ev.time,
                               kind=kind)

    def _drag(self, ev: PageEvent, seen: Seen) -> None:
        """A drag replays as the same pointer path (`mouse_drag`), in viewport pixels."""
        self.flush()
        self._last_scroll = None
        info = ev.target
        box = None
        if info is not None and info.box is not None and info.box[2] > 0 and info.box[3] > 0:
            box = ElementBox(x=info.box[0], y=info.box[1], width=info.box[2],
                             height=info.box[3])
        action = Action(kind=ActionKind.MOUSE_DRAG, x=max(ev.x or 0.0, 0.0),
                        y=max(ev.y or 0.0, 0.0), to_x=max(ev.to_x or 0.0, 0.0),
                        to_y=max(ev.to_y or 0.0, 0.0))
        self.emit(Recorded(seen=seen, action=action, started_at=ev.time, element_box=box))

    def _key(self, ev: PageEvent, seen: Seen) -> None:
        key = ev.key or ""
        if key == "Enter" and self._typing is not None \
                and self._typing.kind is ActionKind.TYPE:
            self.flush(press_enter=True)
            return
        self.flush()
        self._last_scroll = None
        self.emit(Recorded(seen=seen, action=Action(kind=ActionKind.PRESS, value=key),
                           started_at=ev.time))

    def _scroll(self, ev: PageEvent, seen: Seen) -> None:
        """A burst of wheel events one way is one scroll; over an inner scrollable element
        (the capture script sends the pointer's position then) it keeps that point."""
        self.flush()
        last = self._last_scroll
        pointed = ev.x is not None and ev.y is not None
        self._last_scroll = (f"{ev.value}{'@' if pointed else ''}", ev.time)
        if last is not None and last[0] == self._last_scroll[0] \
                and ev.time - last[1] < SCROLL_BURST_S:
            return
        at = {"x": max(ev.x or 0.0, 0.0), "y": max(ev.y or 0.0, 0.0)} if pointed else {}
        self.emit(Recorded(seen=seen, action=Action(kind=ActionKind.SCROLL, value=ev.value,
                                                    **at), started_at=ev.time))

    def _hover(self, ev: PageEvent, info: ElementInfo, seen: Seen) -> None:
        """The pointer rested on an element that reacts to it: `hover` on its id, or
        `mouse_move` to the point when the observation has no id for it."""
        self.flush()
        if find_element(seen.axtree, info) is not None or (
                info.mark and f"[{info.mark}]" in seen.axtree):
            self._element(ActionKind.HOVER, ev, info, seen)
            return
        if ev.x is None or ev.y is None:
            return
        self._last_scroll = None
        self.emit(Recorded(seen=seen, action=Action(kind=ActionKind.MOUSE_MOVE,
                                                    x=max(ev.x, 0.0), y=max(ev.y, 0.0)),
                           started_at=ev.time))

    def _element(self, kind: ActionKind, ev: PageEvent | None, info: ElementInfo, seen: Seen,
                 *, value: str | None = None, at: float | None = None,
                 press_enter: bool = True) -> None:
        self._last_scroll = None
        started = at if at is not None else (ev.time if ev is not None else seen.taken_at)
        box = None
        if info.box is not None and info.box[2] > 0 and info.box[3] > 0:
            box = ElementBox(x=info.box[0], y=info.box[1], width=info.box[2],
                             height=info.box[3])
        element_id = find_element(seen.axtree, info)
        if element_id is None and info.mark and f"[{info.mark}]" in seen.axtree:
            element_id = info.mark  # no role: the id the observation marked it with
        meaningful = info.role not in ("generic", "") or bool(info.name)
        if element_id is None and (not meaningful or not info.name):
            where = f" at ({ev.x:.0f}, {ev.y:.0f})" if ev and ev.x is not None else ""
            self.emit(Recorded(seen=seen, action=None, started_at=started, element_box=box,
                               error=f"{kind.value}{where} on no element of the observation "
                               f"(a <{info.raw_tag or info.tag}> with no role or name)"))
            return
        target = ElementTarget(role=info.role, name=info.name, nth=info.nth) if info.name \
            else None
        error = None if element_id is not None else (
            f"the {info.role} {info.name!r} was not in the observation; its role and name "
            "are kept as the target")
        if kind is ActionKind.TYPE and info.input_type == "password":
            error = "a password was typed here; its value is not recorded"
        action = Action(kind=kind, element_id=element_id, target=target, value=value,
                        press_enter=press_enter if kind is ActionKind.TYPE else True)
        self.emit(Recorded(seen=seen, action=action, started_at=started, element_box=box,
                           error=error))
