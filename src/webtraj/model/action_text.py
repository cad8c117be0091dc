"""The text grammar of actions: writing and reading the form agents write (`click [12]`,
`type [7] [Paris] [0]`, `stop [answer]`, `mouse_drag [10] [20] [110] [20]`), and finding the
action in a model's answer.

The text form follows the WebArena / seed-003 convention. Inside brackets, `\\`, `[` and `]`
are escaped with a backslash when webtraj writes them; when reading, balanced brackets and a
lone backslash are also accepted, because models write them unescaped. An element is named by
its observation id (`click [12]`) or, for reference actions, by role and accessible name
(`click [button 'Search']`, `click [link 'More' nth=2 inexact]`). Coordinates are CSS pixels
of the viewport (`mouse_click [120] [48.5]`).
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from webtraj.model.action import (
    ELEMENT_KINDS,
    POINT_KINDS,
    USAGE,
    VALUE_KINDS,
    Action,
    ActionKind,
    parse_target,
)
from webtraj.model.base import FrozenModel

# The fixed phrase after which agents write their action in triple backticks (the constraint-based
# evaluation paper).
ACTION_PHRASE = "In summary, the next action I will perform is"


class ActionParseError(ValueError):
    """Action text that cannot be read; quotes the text and says what was expected."""

    def __init__(self, text: str, expected: str) -> None:
        shown = text if len(text) <= 200 else text[:197] + "..."
        self.text = text
        self.expected = expected
        super().__init__(f"cannot parse action {shown!r}: {expected}")


def _number(value: float) -> str:
    """A coordinate as text: `12` for whole numbers, else the shortest exact form."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_action(action: Action) -> str:
    """The form agents write; `parse_action(a.to_text()) == a` for every action that names
    its element one way (an id, or a role-and-name target). An action with both (the
    recorder's) is written with its id, the name an agent sees."""
    k = action.kind
    args: list[str] = []
    if k in ELEMENT_KINDS:
        args.append(action.element_id or (action.target.to_text() if action.target else ""))
    if k in POINT_KINDS:
        args.extend(_number(v) for v in (action.x, action.y, action.to_x, action.to_y)
                    if v is not None)
    if k in VALUE_KINDS:
        args.append(action.value or "")
    if k is ActionKind.SCROLL and action.x is not None and action.y is not None:
        args.extend((_number(action.x), _number(action.y)))
    if k is ActionKind.TYPE and not action.press_enter:
        args.append("0")
    if k is ActionKind.TAB_FOCUS:
        args.append(str(action.tab_index))
    return " ".join([k.value, *(f"[{_escape(a)}]" for a in args)])


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
