"""Hand-written solvers for the MiniWoB++ tasks that need coordinates, a drag, or elements
with no accessible role (issue 30). Each reads only what an agent sees (the instruction and
the observation: tree lines, marked elements with their boxes, element boxes) and answers
with webtraj actions, as a person would act on the page."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from webtraj.model import Action, ElementTarget, Observation

_MARK = re.compile(r"^\[(n\d+)\] \[([^\]]*)\] \[((?:[^\]\\]|\\.)*)\] \[(.*)\]$")
_BOX = re.compile(r"box=(-?\d+),(-?\d+),(\d+),(\d+)")


@dataclass
class Mark:
    id: str
    tag: str
    name: str
    props: str
    box: tuple[float, float, float, float]

    @property
    def center(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return x + w / 2, y + h / 2

    def prop(self, key: str) -> str | None:
        m = re.search(rf"{key}=(rgb\([^)]*\)|[^,]*)", self.props)
        return m.group(1) if m else None


def marks(obs: Observation) -> list[Mark]:
    out = []
    for line in obs.axtree.splitlines():
        m = _MARK.match(line)
        if m:
            b = _BOX.search(m.group(4))
            assert b, line
            out.append(Mark(m.group(1), m.group(2), m.group(3).replace("\\", ""), m.group(4),
                            tuple(float(v) for v in b.groups())))  # type: ignore[arg-type]
    return out


def center(obs: Observation, element_id: str) -> tuple[float, float]:
    assert obs.boxes and element_id in obs.boxes, (element_id, obs.boxes)
    x, y, w, h = obs.boxes[element_id]
    return x + w / 2, y + h / 2


def click(element_id: str) -> Action:
    return Action(kind="click", element_id=element_id)


def mouse_click(x: float, y: float) -> Action:
    return Action(kind="mouse_click", x=round(x, 1), y=round(y, 1))


def move(x: float, y: float) -> Action:
    return Action(kind="mouse_move", x=round(x, 1), y=round(y, 1))


def drag(a: tuple[float, float], b: tuple[float, float]) -> Action:
    return Action(kind="mouse_drag", x=round(a[0], 1), y=round(a[1], 1), to_x=round(b[0], 1),
                  to_y=round(b[1], 1))


SUBMIT = Action(kind="click", target=ElementTarget(role="button", name="Submit"))
STOP = Action(kind="stop", value="")
COLORS = {"red": (255, 0, 0), "blue": (0, 0, 255), "olive": (128, 128, 0),
          "lime": (0, 255, 0), "black": (0, 0, 0), "white": (255, 255, 255),
          "grey": (128, 128, 128), "purple": (128, 0, 128), "orange": (255, 165, 0),
          "yellow": (255, 255, 0), "cyan": (0, 255, 255), "pink": (255, 192, 203),
          "magenta": (255, 0, 255)}
SHIFT = {"left": (-25, 0), "right": (25, 0), "up": (0, -25), "down": (0, 25)}


def listitem_named(obs: Observation, text: str) -> str:
    """The id of the list item whose text is `text` (its StaticText child line)."""
    lines = obs.axtree.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"[] [StaticText] [{text}]":
            for prev in reversed(lines[:i]):
                m = re.match(r"\s*\[(\d+)\] \[listitem\]", prev)
                if m:
                    return m.group(1)
    raise AssertionError(f"no list item {text!r}")


# Each solver: (instruction, observation, steps taken so far) -> the next actions.
Solver = Callable[[str, Observation, int], list[Action]]


def click_color(intent: str, obs: Observation, n: int) -> list[Action]:
    boxes = [m for m in marks(obs) if m.tag == "div" and m.prop("color")]
    query = [m for m in boxes if m.box[1] < 50]
    named = re.search(r"Click on the (\w+) colored box", intent)
    want = query[0].prop("color") if query else "rgb({}, {}, {})".format(
        *COLORS[named.group(1)])  # type: ignore[union-attr]
    target = next(m for m in boxes if m.box[1] >= 50 and m.prop("color") == want)
    return [click(target.id), STOP]


def click_link(intent: str, obs: Observation, n: int) -> list[Action]:
    word = re.findall(r'"([^"]+)"', intent)[0]
    return [click(next(m.id for m in marks(obs) if m.tag == "span" and m.name == word)), STOP]


def grid_coordinate(intent: str, obs: Observation, n: int) -> list[Action]:
    x, y = (int(v) for v in re.search(r"\((-?\d+),(-?\d+)\)", intent).groups())  # type: ignore
    dots = [m for m in marks(obs) if m.tag == "circle"]
    xs = sorted({m.box[0] for m in dots})
    ys = sorted({m.box[1] for m in dots})
    return [click(next(m.id for m in dots if m.box[0] == xs[x + 2] and m.box[1] == ys[2 - y])),
            STOP]


_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
          (2, 4, 6)]


def _winner(board: list[str]) -> str | None:
    for a, b, c in _LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return None


def _best(board: list[str], me: str) -> tuple[int, int]:
    """Minimax (score for X, move)."""
    won = _winner(board)
    if won:
        return (1 if won == "X" else -1), -1
    free = [i for i, v in enumerate(board) if not v]
    if not free:
        return 0, -1
    results = []
    for i in free:
        board[i] = me
        score, _ = _best(board, "O" if me == "X" else "X")
        board[i] = ""
        results.append((score, i))
    return (max if me == "X" else min)(results)


def tic_tac_toe(intent: str, obs: Observation, n: int) -> list[Action]:
    cells = sorted((m for m in marks(obs) if m.tag == "span"), key=lambda m: (m.box[1],
                                                                               m.box[0]))
    board = [{"mark-x": "X", "mark-o": "O"}.get(m.prop("class") or "", "") for m in cells]
    if _winner(board) or all(board):
        return [STOP]
    return [mouse_click(*cells[_best(board, "X")[1]].center)]


def social_media(intent: str, obs: Observation, n: int) -> list[Action]:
    user, label = re.search(r"For the user (@\S+), click on the \"(.+)\" button", intent).groups()  # type: ignore[union-attr]
    posts = [line for line in obs.axtree.splitlines()
             if re.match(r"\[\] \[StaticText\] \[\S.* @\S+\]$", line)]
    index = next(i for i, line in enumerate(posts) if line.endswith(f" {user}]"))
    kind = {"Reply": "reply", "Retweet": "retweet", "Like": "like"}.get(label)
    spans = [m for m in marks(obs) if m.tag == "span"]
    # The icons change their image under the pointer: a click at their centre, as a person
    # clicks them (a click by id waits for the element to hold still).
    if kind is not None:
        return [mouse_click(*[m for m in spans if m.prop("class") == kind][index].center), STOP]
    more = [m for m in spans if m.prop("class") == "more"][index]
    text = f"{label} {user}" if label in ("Mute", "Block") else label
    # An open menu's items are named list items of the tree (the closed ones are hidden).
    found = re.search(rf"^\s*\[(\d+)\] \[listitem\] \[{re.escape(text)}\]$", obs.axtree,
                      re.M)
    if found is None:  # the menu is not open (yet): open it
        # The icon swaps its image under the pointer (`.more:hover`): a click that arrives
        # with the pointer lands while the new image has no size yet, so the pointer rests
        # on it first, as a person's does.
        return [move(*more.center), mouse_click(*more.center)] if n < 6 else [STOP]
    return [click(found.group(1)), STOP]


def drag_box(intent: str, obs: Observation, n: int) -> list[Action]:
    found = {m.name: m for m in marks(obs)}
    return [drag(found["s"].center, found["L"].center), SUBMIT, STOP]


def drag_one(intent: str, obs: Observation, n: int) -> list[Action]:
    direction = re.search(r"Drag the \w+ (left|right|up|down)", intent).group(1)  # type: ignore
    shape = next(m for m in marks(obs) if m.tag in ("circle", "rect", "polygon")
                 and "clickable" in m.props)
    (x, y), (dx, dy) = shape.center, SHIFT[direction]
    return [drag((x, y), (x + dx, y + dy)), SUBMIT, STOP]


def draw_line(intent: str, obs: Observation, n: int) -> list[Action]:
    x, y = next(m for m in marks(obs) if m.tag == "circle").center
    if "vertical" in intent:
        return [drag((x, y - 24), (x, y + 24)), SUBMIT, STOP]
    return [drag((x - 24, y), (x + 24, y)), SUBMIT, STOP]


def draw_circle(intent: str, obs: Observation, n: int) -> list[Action]:
    """A short stroke tangent to a circle of radius 20 around the mark: every point of it
    is 20-29 px from the centre (the page scores how even that distance is)."""
    cx, cy = next(m for m in marks(obs) if m.tag == "circle").center
    area = next(m for m in marks(obs) if m.tag == "svg")
    up = -1 if cy > area.center[1] else 1
    px, py = cx + 14.1, cy + up * 14.1
    return [drag((px - 14.8, py + up * 14.8), (px + 14.8, py - up * 14.8)), SUBMIT, STOP]


def drag_items(intent: str, obs: Observation, n: int) -> list[Action]:
    name, pos = re.search(r"Drag (\w+) to the (\d+)\w\w position", intent).groups()  # type: ignore
    items = [m.group(1) for m in re.finditer(r"^\s*\[(\d+)\] \[listitem\]", obs.axtree, re.M)]
    source = listitem_named(obs, name)
    target = items[int(pos) - 1]
    (sx, sy), (tx, ty) = center(obs, source), center(obs, target)
    # Past the target's middle in the direction of travel, so the list makes room there.
    ty += 4 if ty > sy else -4
    return [drag((sx, sy), (tx, ty)), STOP]  # the page scores the drop itself


def drag_items_grid(intent: str, obs: Observation, n: int) -> list[Action]:
    name, direction = re.search(r"Drag (\w+) (left|right|up|down) by one", intent).groups()  # type: ignore
    items = [m.group(1) for m in re.finditer(r"^\s*\[(\d+)\] \[listitem\]", obs.axtree, re.M)]
    source = listitem_named(obs, name)
    sx, sy = center(obs, source)
    dx, dy = SHIFT[direction]

    def ahead(i: str) -> float:
        x, y = center(obs, i)
        along = (x - sx) * dx + (y - sy) * dy
        across = abs((x - sx) * dy) + abs((y - sy) * dx)
        return along if along > 0 and across < 5 else float("inf")

    target = min(items, key=ahead)
    tx, ty = center(obs, target)
    return [drag((sx, sy), (tx + dx / 6, ty + dy / 6)), STOP]


_SHAPES = {"circle": "circle", "circles": "circle", "rectangle": "rect", "rectangles": "rect",
           "square": "rect", "squares": "rect", "triangle": "polygon",
           "triangles": "polygon"}


def _targets(obs: Observation) -> tuple[list[Mark], list[Mark]]:
    """The shapes to move (they take the pointer) and the boxes to drop them in."""
    found = [m for m in marks(obs) if m.tag in ("circle", "rect", "polygon")]
    return ([m for m in found if "clickable" in m.props],
            sorted((m for m in found if "clickable" not in m.props), key=lambda m: m.box[0]))


def _spots(box: Mark) -> itertools.cycle:
    x, y, w, h = box.box
    return itertools.cycle([(x + w * fx, y + h * fy) for fy in (0.3, 0.7)
                            for fx in (0.2, 0.4, 0.6, 0.8)])


def drag_shapes(intent: str, obs: Observation, n: int) -> list[Action]:
    kind = _SHAPES[re.search(r"Drag all (\w+) into", intent).group(1)]  # type: ignore
    shapes, (box, *_) = _targets(obs)
    spots = _spots(box)
    return [drag(m.center, next(spots)) for m in shapes if m.tag == kind] + [SUBMIT, STOP]


def drag_shapes_2(intent: str, obs: Observation, n: int) -> list[Action]:
    m = re.search(r"Drag all (\w+) into the (left|right) box", intent)
    kind, side = _SHAPES[m.group(1)], m.group(2)  # type: ignore[union-attr]
    shapes, (left, right) = _targets(obs)
    into, other = (left, right) if side == "left" else (right, left)
    spots, rest = _spots(into), _spots(other)
    return [drag(s.center, next(spots if s.tag == kind else rest)) for s in shapes] + [SUBMIT,
                                                                                        STOP]


def chase_circle(intent: str, obs: Observation, n: int) -> list[Action]:
    if n >= 25:
        return [STOP]
    return [move(*next(m for m in marks(obs) if m.tag == "circle").center)]


def hot_cold(intent: str, obs: Observation, n: int) -> list[Action]:
    """Probe a grid fine enough that one probe is within 40 px of any spot (COLD or
    better), then click where the display said so."""
    area = next(m for m in marks(obs) if m.tag == "div" and m.box[3] > 100)
    x, y, w, h = area.box
    probes = [(x + w * fx, y + h * fy) for fy in (1 / 6, 1 / 2, 5 / 6)
              for fx in (1 / 6, 1 / 2, 5 / 6)]
    said = re.search(r"\[StaticText\] \[(HOT|WARM|COLD|ICE COLD)\]", obs.axtree)
    if n > 0 and said and said.group(1) != "ICE COLD":
        return [mouse_click(*probes[n - 1])]
    if n >= len(probes):
        return [STOP]
    return [move(*probes[n])]


def moving_items(intent: str, obs: Observation, n: int) -> list[Action]:
    area = next(m for m in marks(obs) if m.tag == "svg")
    ax, ay, aw, ah = area.box
    inside = [m for m in marks(obs) if m.tag == "circle" and ax + 10 < m.center[0] < ax + aw - 10
              and ay + 10 < m.center[1] < ay + ah - 10]
    if re.search(r"\] \[generic\] \[DONE\]", obs.axtree):  # the page ended itself (9.9 s)
        return [STOP]
    if not inside:
        return [move(ax + aw / 2, ay + ah / 2)]
    return [mouse_click(*inside[0].center)]


def daily_calendar(intent: str, obs: Observation, n: int) -> list[Action]:
    m = re.search(r"Create a (\d+) (mins|hours?) event named \"(.+)\", between (\d+)(AM|PM) "
                  r"and", intent)
    amount, unit, name, hour, half = m.groups()  # type: ignore[union-attr]
    halves = int(amount) // 30 if unit == "mins" else int(amount) * 2
    start = (int(hour) % 12 + (12 if half == "PM" else 0)) * 2
    cells = [c for c in marks(obs) if c.tag == "div" and c.box[2] > 100 and c.box[3] < 25]
    if n == 0:
        return [Action(kind="hover", element_id=cells[start + halves - 1].id)]
    if n == 1:
        return [drag(cells[start].center, cells[start + halves - 1].center)]
    field = re.search(r"\[(\d+)\] \[textbox\] \[[^\]]*\]", obs.axtree)
    return [Action(kind="type", element_id=field.group(1), value=name,  # type: ignore[union-attr]
                   press_enter=False),
            Action(kind="click", target=ElementTarget(role="button", name="Create")), STOP]


SOLVERS: dict[str, Solver] = {
    "click-color": click_color, "click-link": click_link, "grid-coordinate": grid_coordinate,
    "tic-tac-toe": tic_tac_toe, "social-media": social_media, "drag-box": drag_box,
    "drag-circle": drag_one, "drag-single-shape": drag_one, "draw-line": draw_line,
    "draw-circle": draw_circle, "drag-items": drag_items, "drag-items-grid": drag_items_grid,
    "drag-shapes": drag_shapes, "drag-shapes-2": drag_shapes_2, "chase-circle": chase_circle,
    "hot-cold": hot_cold, "moving-items": moving_items, "daily-calendar": daily_calendar,
}
