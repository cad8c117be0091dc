"""Agent actions and their text form (`click [12]`, `type [7] [Paris] [0]`, `stop [answer]`,
`mouse_drag [10] [20] [110] [20]`).

The text form follows the WebArena / seed-003 convention. Inside brackets, `\\`, `[` and `]`
are escaped with a backslash when webtraj writes them; when reading, balanced brackets and a
lone backslash are also accepted, because models write them unescaped. An element is named by
its observation id (`click [12]`) or, for reference actions, by role and accessible name
(`click [button 'Search']`, `click [link 'More' nth=2 inexact]`). Coordinates are CSS pixels
of the viewport (`mouse_click [120] [48.5]`).
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import Field, ValidationError, model_validator

from webtraj.model.base import FrozenModel

# The fixed phrase after which agents write their action in triple backticks (the constraint-based
# evaluation paper).
ACTION_PHRASE = "In summary, the next action I will perform is"


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


class ActionParseError(ValueError):
    """Action text that cannot be read; quotes the text and says what was expected."""

    def __init__(self, text: str, expected: str) -> None:
        shown = text if len(text) <= 200 else text[:197] + "..."
        self.text = text
        self.expected = expected
        super().__init__(f"cannot parse action {shown!r}: {expected}")


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


def _number(value: float) -> str:
    """A coordinate as text: `12` for whole numbers, else the shortest exact form."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


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
        """The form agents write; `parse_action(a.to_text()) == a` for every action that names
        its element one way (an id, or a role-and-name target). An action with both (the
        recorder's) is written with its id, the name an agent sees."""
        k = self.kind
        args: list[str] = []
        if k in ELEMENT_KINDS:
            args.append(self.element_id or (self.target.to_text() if self.target else ""))
        if k in POINT_KINDS:
            args.extend(_number(v) for v in (self.x, self.y, self.to_x, self.to_y)
                        if v is not None)
        if k in VALUE_KINDS:
            args.append(self.value or "")
        if k is ActionKind.SCROLL and self.x is not None and self.y is not None:
            args.extend((_number(self.x), _number(self.y)))
        if k is ActionKind.TYPE and not self.press_enter:
            args.append("0")
        if k is ActionKind.TAB_FOCUS:
            args.append(str(self.tab_index))
        return " ".join([k.value, *(f"[{_escape(a)}]" for a in args)])

    def __str__(self) -> str:
        return self.to_text()


def action_text(action: Action | None) -> str:
    """An action as prompts, reports and judges show it: its text form (a reference action
    known only by role and name is written with that target, which reads back the same)."""
    if action is None:
        return "(no valid action)"
    return action.to_text()


def _escape(arg: str) -> str:
    return arg.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _unescape_loose(arg: str) -> str:
    return re.sub(r"\\([\[\]\\])", r"\1", arg)


class _Unbalanced(Exception):
    pass


def _split_args(rest: str) -> list[str]:
    """Bracketed arguments; escapes and balanced inner brackets are kept as text."""
    args: list[str] = []
    i, n = 0, len(rest)
    while i < n:
        c = rest[i]
        if c.isspace():
            i += 1
            continue
        if c != "[":
            raise _Unbalanced(f"unexpected text {rest[i:i + 30]!r} outside brackets")
        i += 1
        depth = 0
        buf: list[str] = []
        while True:
            if i >= n:
                raise _Unbalanced("unterminated '['")
            c = rest[i]
            if c == "\\" and i + 1 < n and rest[i + 1] in "[]\\":
                buf.append(rest[i + 1])
                i += 2
                continue
            if c == "[":
                depth += 1
            elif c == "]":
                if depth == 0:
                    i += 1
                    break
                depth -= 1
            buf.append(c)
            i += 1
        args.append("".join(buf))
    return args


_HEAD = re.compile(r"\s*([A-Za-z][A-Za-z_]*)")
_FLAG = re.compile(r"^(?:press_enter_after\s*=\s*)?([01])$")
_KIND_ALIASES = {"goback": "go_back", "goforward": "go_forward", "newtab": "new_tab",
                 "tabfocus": "tab_focus", "closetab": "close_tab"}


def _loose_tail(rest: str, n_ids: int) -> list[str] | None:
    """Fallback for a free-text last argument with unbalanced brackets: ids first, then
    everything between the next '[' and the final ']'."""
    args: list[str] = []
    s = rest.strip()
    for _ in range(n_ids):
        m = re.match(r"\[([^\[\]]*)\]\s*", s)
        if not m:
            return None
        args.append(m.group(1))
        s = s[m.end():]
    if not (s.startswith("[") and s.endswith("]")):
        return None
    body = s[1:-1]
    flag = re.search(r"\]\s*\[(?:press_enter_after\s*=\s*)?([01])$", body)
    if flag:
        args.extend([_unescape_loose(body[: flag.start()]), flag.group(1)])
    else:
        args.append(_unescape_loose(body))
    return args


def parse_action(text: str) -> Action:
    """Read one action in text form. Raises ActionParseError quoting the text."""
    if not isinstance(text, str) or not text.strip():
        raise ActionParseError(str(text), "empty action; expected e.g. 'click [12]'")
    m = _HEAD.match(text)
    if not m:
        raise ActionParseError(text, "expected an action name such as click, type, stop")
    name = m.group(1).lower()
    name = _KIND_ALIASES.get(name, name)
    try:
        kind = ActionKind(name)
    except ValueError:
        names = ", ".join(k.value for k in ActionKind)
        raise ActionParseError(
            text, f"unknown action {m.group(1)!r}; expected one of {names}") from None
    rest = text[m.end():]
    usage = f"expected {USAGE[kind]}"
    try:
        args = _split_args(rest)
    except _Unbalanced as exc:
        free_text = {ActionKind.STOP: 0, ActionKind.TYPE: 1, ActionKind.SELECT: 1,
                     ActionKind.GOTO: 0, ActionKind.KEYBOARD_TYPE: 0}
        args_or_none = _loose_tail(rest, free_text[kind]) if kind in free_text else None
        if args_or_none is None:
            raise ActionParseError(text, f"{exc}; {usage}") from None
        args = args_or_none
    try:
        return _build(kind, args)
    except (ValueError, TypeError) as exc:
        detail = _reason(exc) if not isinstance(exc, ActionParseError) else ""
        raise ActionParseError(text, f"{usage}" + (f" ({detail})" if detail else "")) from None


def _build(kind: ActionKind, args: list[str]) -> Action:
    def need(count: int | tuple[int, ...]) -> None:
        counts = (count,) if isinstance(count, int) else count
        if len(args) not in counts:
            raise ValueError(f"got {len(args)} argument(s)")

    def element(arg: str) -> dict[str, object]:
        target = parse_target(arg.strip())
        return {"target": target} if target is not None else {"element_id": arg.strip()}

    if kind in (ActionKind.CLICK, ActionKind.HOVER):
        need(1)
        return Action(kind=kind, **element(args[0]))
    if kind is ActionKind.TYPE:
        need((2, 3))
        press_enter = True
        if len(args) == 3:
            flag = _FLAG.match(args[2].strip())
            if not flag:
                raise ValueError(f"the third argument must be 0 or 1, got {args[2]!r}")
            press_enter = flag.group(1) == "1"
        return Action(kind=kind, **element(args[0]), value=args[1], press_enter=press_enter)
    if kind is ActionKind.SELECT:
        need(2)
        return Action(kind=kind, **element(args[0]), value=args[1])
    if kind in POINT_KINDS:
        need(4 if kind is ActionKind.MOUSE_DRAG else 2)
        x, y, *end = (_coordinate(a) for a in args)
        return Action(kind=kind, x=x, y=y, **dict(zip(("to_x", "to_y"), end, strict=False)))
    if kind is ActionKind.KEYBOARD_TYPE:
        need(1)
        return Action(kind=kind, value=args[0])
    if kind is ActionKind.PRESS:
        need(1)
        return Action(kind=kind, value=args[0].strip())
    if kind is ActionKind.SCROLL:
        need((1, 3))
        direction = args[0].strip().lower().removeprefix("direction=")
        at = dict(zip(("x", "y"), [_coordinate(a) for a in args[1:]], strict=False))
        return Action(kind=kind, value=direction, **at)
    if kind is ActionKind.GOTO:
        need(1)
        return Action(kind=kind, value=args[0].strip())
    if kind is ActionKind.TAB_FOCUS:
        need(1)
        try:
            index = int(args[0].strip())
        except ValueError:
            raise ValueError(f"tab index must be an integer, got {args[0]!r}") from None
        return Action(kind=kind, tab_index=index)
    if kind is ActionKind.STOP:
        need((0, 1))
        return Action(kind=kind, value=args[0] if args else "")
    need(0)
    return Action(kind=kind)


def _reason(exc: Exception) -> str:
    """The first reason a model refused its fields, without pydantic's framing."""
    if isinstance(exc, ValidationError) and exc.errors():
        return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    return str(exc).splitlines()[0]


def _coordinate(arg: str) -> float:
    text = arg.strip().removesuffix("px").strip()
    try:
        value = float(text.split("=", 1)[1] if "=" in text else text)
    except ValueError:
        raise ValueError(f"a coordinate must be a number, got {arg!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"a coordinate must be a finite number, got {arg!r}")
    return value


class ParsedAnswer(FrozenModel):
    reasoning: str
    action: Action
    action_text: str


_FENCE = re.compile(r"```(?:[a-zA-Z]*\n)?(.*?)```|'''(.*?)'''", re.DOTALL)


def parse_answer(answer: str) -> ParsedAnswer:
    """Split a model's free-text answer into reasoning and action.

    Looks for the action in triple backticks after ACTION_PHRASE, then for the last fenced
    block that parses, then for the last line that parses."""
    if not isinstance(answer, str) or not answer.strip():
        raise ActionParseError(str(answer), "empty answer; expected reasoning then "
                               f"'{ACTION_PHRASE} ```click [12]```'")
    lowered = answer.lower()
    pos = lowered.rfind(ACTION_PHRASE.lower())
    if pos >= 0:
        after = answer[pos + len(ACTION_PHRASE):]
        m = _FENCE.search(after)
        if m:
            body = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
            try:
                action = parse_action(body)
            except ActionParseError:
                # The action itself may contain a fence: take up to the last one instead.
                fence = after[m.start():m.start() + 3]
                body = after[m.start() + 3: after.rfind(fence)].strip()
                action = parse_action(body)
            return ParsedAnswer(reasoning=answer[:pos].strip(), action=action,
                                action_text=body)
        line = after.strip().strip(":").strip().strip("`'\"").strip()
        try:
            return ParsedAnswer(reasoning=answer[:pos].strip(), action=parse_action(line),
                                action_text=line)
        except ActionParseError:
            pass
    for m in reversed(list(_FENCE.finditer(answer))):
        body = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
        try:
            action = parse_action(body)
        except ActionParseError:
            continue
        return ParsedAnswer(reasoning=answer[: m.start()].strip(), action=action,
                            action_text=body)
    lines = answer.strip().splitlines()
    for idx in range(len(lines) - 1, -1, -1):
        candidate = lines[idx].strip().strip("`").strip()
        try:
            action = parse_action(candidate)
        except ActionParseError:
            continue
        return ParsedAnswer(reasoning="\n".join(lines[:idx]).strip(), action=action,
                            action_text=candidate)
    raise ActionParseError(
        answer, f"no action found; expected reasoning, then '{ACTION_PHRASE} ```click [12]```'"
    )
