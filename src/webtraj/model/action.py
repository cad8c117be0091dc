"""Agent actions: the kinds, what each takes (and how it is written, for error messages and
prompts), the action sets an agent may use, and the `Action` model with its checks.

The text grammar (`click [12]`, `type [7] [Paris] [0]`, parsing a model's answer) is
`action_text.py`'s; an element target's short form (`button 'Search' nth=2`) lives here with
the target, since an element id must never read as one.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import Field, model_validator

from webtraj.model.base import FrozenModel


class ActionKind(StrEnum):
    CLICK = "click"
    TYPE = "type"
    HOVER = "hover"
    SELECT = "select"
    PRESS = "press"
    SCROLL = "scroll"
    GOTO = "goto"
    GO_BACK = "go_back"
    GO_FORWARD = "go_forward"
    NEW_TAB = "new_tab"
    TAB_FOCUS = "tab_focus"
    CLOSE_TAB = "close_tab"
    MOUSE_CLICK = "mouse_click"
    MOUSE_DBLCLICK = "mouse_dblclick"
    MOUSE_MOVE = "mouse_move"
    MOUSE_DRAG = "mouse_drag"
    KEYBOARD_TYPE = "keyboard_type"
    STOP = "stop"


ELEMENT_KINDS = frozenset({ActionKind.CLICK, ActionKind.TYPE, ActionKind.HOVER, ActionKind.SELECT})
VALUE_KINDS = frozenset(
    {ActionKind.TYPE, ActionKind.SELECT, ActionKind.PRESS, ActionKind.SCROLL, ActionKind.GOTO,
     ActionKind.STOP, ActionKind.KEYBOARD_TYPE}
)
# Kinds that act at a point of the viewport (x, y); a drag also has its end (to_x, to_y).
POINT_KINDS = frozenset({ActionKind.MOUSE_CLICK, ActionKind.MOUSE_DBLCLICK,
                         ActionKind.MOUSE_MOVE, ActionKind.MOUSE_DRAG})
SCROLL_DIRECTIONS = ("up", "down")

# How each kind is written, for error messages.
USAGE: dict[ActionKind, str] = {
    ActionKind.CLICK: "click [id]",
    ActionKind.TYPE: "type [id] [text] (append [0] to not press Enter)",
    ActionKind.HOVER: "hover [id]",
    ActionKind.SELECT: "select [id] [option]",
    ActionKind.PRESS: "press [key]",
    ActionKind.SCROLL: "scroll [up|down]",
    ActionKind.GOTO: "goto [url]",
    ActionKind.GO_BACK: "go_back",
    ActionKind.GO_FORWARD: "go_forward",
    ActionKind.NEW_TAB: "new_tab",
    ActionKind.TAB_FOCUS: "tab_focus [index]",
    ActionKind.CLOSE_TAB: "close_tab",
    ActionKind.MOUSE_CLICK: "mouse_click [x] [y]",
    ActionKind.MOUSE_DBLCLICK: "mouse_dblclick [x] [y]",
    ActionKind.MOUSE_MOVE: "mouse_move [x] [y]",
    ActionKind.MOUSE_DRAG: "mouse_drag [x1] [y1] [x2] [y2]",
    ActionKind.KEYBOARD_TYPE: "keyboard_type [text]",
    ActionKind.STOP: "stop [answer]",
}

# A scroll at a point (a coordinate form: the sets with coordinates describe it).
SCROLL_AT_USAGE = "scroll [up|down] [x] [y]"
SCROLL_AT_HELP = "scroll the page, or with a point the scrollable element under that point"

# What each kind does, as prompts describe it (the usage is USAGE's).
ACTION_HELP: dict[ActionKind, str] = {
    ActionKind.CLICK: "click an element",
    ActionKind.TYPE: "type into a field, then press Enter",
    ActionKind.HOVER: "move the mouse over an element",
    ActionKind.SELECT: "choose an option of a drop-down",
    ActionKind.PRESS: "press a key or combination, e.g. press [Enter], press [Control+a]",
    ActionKind.SCROLL: "scroll the page",
    ActionKind.GOTO: "open a URL in this tab",
    ActionKind.GO_BACK: "go back in this tab's history",
    ActionKind.GO_FORWARD: "go forward in this tab's history",
    ActionKind.NEW_TAB: "open a new tab",
    ActionKind.TAB_FOCUS: "switch to the tab with that index",
    ActionKind.CLOSE_TAB: "close the current tab",
    ActionKind.MOUSE_CLICK: "click at a point of the viewport (CSS pixels from its top left)",
    ActionKind.MOUSE_DBLCLICK: "double-click at a point of the viewport",
    ActionKind.MOUSE_MOVE: "move the mouse to a point of the viewport (hover there)",
    ActionKind.MOUSE_DRAG: "press the mouse at (x1, y1), move it to (x2, y2), release it",
    ActionKind.KEYBOARD_TYPE: "type text into whatever has the focus",
    ActionKind.STOP: "finish; put the answer in the brackets when the task asks for "
                     "information, leave them empty otherwise",
}


class ActionSet(StrEnum):
    """Which actions an agent may take: by element id (the tree's), by viewport coordinates,
    or both."""

    IDS = "ids"
    COORDS = "coords"
    BOTH = "both"

    @property
    def kinds(self) -> tuple[ActionKind, ...]:
        by_id = ELEMENT_KINDS if self is not ActionSet.COORDS else frozenset()
        by_point = (POINT_KINDS | {ActionKind.KEYBOARD_TYPE}
                    if self is not ActionSet.IDS else frozenset())
        return tuple(k for k in ActionKind if k in by_id or k in by_point
                     or k not in ELEMENT_KINDS | POINT_KINDS | {ActionKind.KEYBOARD_TYPE})

    def allows(self, action: Action) -> bool:
        """Whether an agent with this set may take `action` (a scroll at a point is a
        coordinate action)."""
        return action.kind in self.kinds and (
            self is not ActionSet.IDS or action.point is None)

    def usage(self, kind: ActionKind) -> str:
        """How `kind` is written with this set (with coordinates, a scroll may take a point)."""
        if kind is ActionKind.SCROLL and self is not ActionSet.IDS:
            return SCROLL_AT_USAGE
        return USAGE[kind]

    def describe(self) -> str:
        """The action list a prompt shows, generated from USAGE and ACTION_HELP."""
        def line(k: ActionKind) -> str:
            pointed = k is ActionKind.SCROLL and self is not ActionSet.IDS
            return f"  {self.usage(k)}: {SCROLL_AT_HELP if pointed else ACTION_HELP[k]}"
        return "\n".join(line(k) for k in self.kinds)


class ElementTarget(FrozenModel):
    """A site-independent way to name an element (role + accessible name), used by reference
    actions so they survive id changes between page loads."""

    role: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    name: str
    exact: bool = True
    nth: int = Field(default=0, ge=0)

    def to_text(self) -> str:
        """`button 'Search'`, with ` nth=N` and ` inexact` when they apply. The name needs no
        escaping: it runs from the first quote to the last (flags hold no quote)."""
        return (f"{self.role} '{self.name}'" + (f" nth={self.nth}" if self.nth else "")
                + ("" if self.exact else " inexact"))


_TARGET = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*) '(.*)'((?: (?:nth=\d+|inexact))*)$",
                     re.DOTALL)


def parse_target(text: str) -> ElementTarget | None:
    """The target written by `ElementTarget.to_text`, or None when `text` is not one."""
    m = _TARGET.match(text)
    if m is None:
        return None
    flags = m.group(3).split()
    nth = next((int(f[4:]) for f in flags if f.startswith("nth=")), 0)
    return ElementTarget(role=m.group(1), name=m.group(2), exact="inexact" not in flags,
                         nth=nth)


_STRIPPED_VALUE_KINDS = ("press", "goto", "scroll", ActionKind.PRESS, ActionKind.GOTO,
                         ActionKind.SCROLL)


class Action(FrozenModel):
    kind: ActionKind
    element_id: str | None = None
    value: str | None = None
    press_enter: bool = True
    tab_index: int | None = Field(default=None, ge=0)
    target: ElementTarget | None = None
    # The point (CSS pixels of the viewport) of a mouse action; a drag ends at (to_x, to_y).
    x: float | None = Field(default=None, allow_inf_nan=False)
    y: float | None = Field(default=None, allow_inf_nan=False)
    to_x: float | None = Field(default=None, allow_inf_nan=False)
    to_y: float | None = Field(default=None, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _normalize(cls, data: object) -> object:
        """A stop answer defaults to ""; ids, keys and URLs carry no surrounding blanks."""
        if not isinstance(data, dict):
            return data
        # Copied only when something changes (stored actions are already normal: one per
        # step of every trajectory read).
        kind, value, element_id = data.get("kind"), data.get("value"), data.get("element_id")
        changes: dict[str, str] = {}
        if kind in ("stop", ActionKind.STOP) and not value and value != "":
            changes["value"] = ""
        if isinstance(element_id, str) and element_id != element_id.strip():
            changes["element_id"] = element_id.strip()
        if kind in _STRIPPED_VALUE_KINDS and isinstance(value, str) and value != value.strip():
            changes["value"] = value.strip()
        return {**data, **changes} if changes else data

    @model_validator(mode="after")
    def _check_fields(self) -> Action:
        k = self.kind
        if k in ELEMENT_KINDS:
            if not self.element_id and self.target is None:
                raise ValueError(f"{k.value} needs element_id (or a target): {USAGE[k]}")
            if self.element_id and parse_target(self.element_id) is not None:
                raise ValueError(f"element id {self.element_id!r} reads as a role-and-name "
                                 "target; pass it as target")
        elif self.element_id is not None or self.target is not None:
            raise ValueError(f"{k.value} takes no element")
        if k in VALUE_KINDS:
            if self.value is None:
                raise ValueError(f"{k.value} needs a value: {USAGE[k]}")
            if k in (ActionKind.PRESS, ActionKind.GOTO) and not self.value.strip():
                raise ValueError(f"{k.value} needs a non-empty value: {USAGE[k]}")
            if k is ActionKind.SCROLL and self.value not in SCROLL_DIRECTIONS:
                raise ValueError(f"scroll direction must be up or down, got {self.value!r}")
            if k is ActionKind.KEYBOARD_TYPE and not self.value:
                raise ValueError(f"keyboard_type needs text to type: {USAGE[k]}")
        elif self.value is not None:
            raise ValueError(f"{k.value} takes no value")
        if k is ActionKind.TAB_FOCUS:
            if self.tab_index is None:
                raise ValueError(f"tab_focus needs tab_index: {USAGE[k]}")
        elif self.tab_index is not None:
            raise ValueError(f"{k.value} takes no tab_index")
        if k is not ActionKind.TYPE and not self.press_enter:
            raise ValueError("press_enter applies to type only")
        drag = k is ActionKind.MOUSE_DRAG
        # A scroll may carry a point (both coordinates or neither): it scrolls what is there.
        pointed = k in POINT_KINDS or (k is ActionKind.SCROLL
                                       and (self.x is not None or self.y is not None))
        for name, needed in (("x", pointed), ("y", pointed), ("to_x", drag),
                             ("to_y", drag)):
            value = getattr(self, name)
            if needed and value is None:
                raise ValueError(f"{k.value} needs {name}: {USAGE[k]}")
            if not needed and value is not None:
                raise ValueError(f"{k.value} takes no {name}")
            if value is not None and value < 0:
                raise ValueError(f"{name} must be a viewport coordinate >= 0, got {value}")
        return self

    @property
    def point(self) -> tuple[float, float] | None:
        """Where a mouse action acts (a drag's start), None for other kinds."""
        return (self.x, self.y) if self.x is not None and self.y is not None else None

    def to_text(self) -> str:
        """The form agents write (`action_text.format_action`; imported here because the
        grammar builds on this model)."""
        from webtraj.model.action_text import format_action

        return format_action(self)

    def __str__(self) -> str:
        return self.to_text()
