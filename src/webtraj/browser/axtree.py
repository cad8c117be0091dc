"""Accessibility-tree text for agents, built from Playwright's AI-mode aria snapshot.

Why the aria snapshot and not CDP `Accessibility.getFullAXTree`: on a 1,000-element page the
CDP tree costs ~80 ms on two cores (a ~800 KB JSON payload), the aria snapshot ~30 ms, and the
snapshot already stitches iframes in and gives every interactable element a ref that Playwright
resolves to a locator (`aria-ref=e12`). Refs are assigned once per element and kept while its
role and accessible name stay the same; they come from a per-document counter, so a ref is
never reused for a different element within a document.

Output: one line per node, indented with tabs, `[id] [role] [name] [properties]` (the
constraint-based evaluation paper).
Generic and presentational nodes are skipped (their children move up); static text that repeats
its parent's name or an adjacent element's name (a label) is dropped. Nodes without a ref
(static text, options of a native select) show an empty id `[]`: they cannot be targeted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

# Roles that carry no meaning for an agent: skipped, children promoted.
SKIPPED_ROLES = frozenset({"generic", "none", "presentation", "fragment"})
# Roles whose inline text is the current value, not a name.
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
# Roles that are interactable by nature; `clickable` is only added to the others.
INTERACTIVE_ROLES = frozenset({
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "textbox", "searchbox", "combobox", "spinbutton",
    "slider", "listbox",
})
_XESC = re.compile(r"\\(x[0-9a-fA-F]{2}|.)")
_SIMPLE_ESC = {"\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_DECODER = json.JSONDecoder()


@dataclass
class AriaNode:
    """One parsed snapshot node (`role == "text"` for text runs)."""

    role: str
    name: str = ""
    ref: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    props: dict[str, str] = field(default_factory=dict)
    box: tuple[float, float, float, float] | None = None
    children: list[AriaNode] = field(default_factory=list)


_REF = re.compile(r"^(f\d+)?e(\d+)$")


def ref_to_id(ref: str, main_prefix: str = "") -> str:
    """Refs of the main frame's document (`e12`, or `f3e12` once the tab has navigated:
    Playwright gives every new document a new prefix) become the numeric ids of the
    constraint-based evaluation paper
    (`12`); refs inside iframes (`f1e3`) keep their prefix."""
    head = main_prefix + "e"
    if ref.startswith(head) and ref[len(head):].isdigit():
        return ref[len(head):]
    return ref


def id_to_ref(element_id: str, main_prefix: str = "") -> str:
    element_id = element_id.strip()
    return f"{main_prefix}e{element_id}" if element_id.isdigit() else element_id


def main_prefix_of(roots: list[AriaNode]) -> str:
    """The ref prefix of the snapshot's own document: that of its first ref."""
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node.ref:
            m = _REF.match(node.ref)
            return (m.group(1) or "") if m else ""
        stack.extend(reversed(node.children))
    return ""


def _unquote_value(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == '"' and raw[-1] == '"':
        def repl(m: re.Match[str]) -> str:
            esc = m.group(1)
            if esc.startswith("x") and len(esc) == 3:
                return chr(int(esc[1:], 16))
            return _SIMPLE_ESC.get(esc, esc)

        return _XESC.sub(repl, raw[1:-1])
    return raw


def _split_entry(body: str) -> tuple[str, str | None, bool]:
    """Split `KEY`, `KEY: VALUE` or `KEY:` (YAML key possibly single-quoted)."""
    if body.startswith("'"):
        i = 1
        buf = []
        while i < len(body):
            c = body[i]
            if c == "'":
                if i + 1 < len(body) and body[i + 1] == "'":
                    buf.append("'")
                    i += 2
                    continue
                break
            buf.append(c)
            i += 1
        key, rest = "".join(buf), body[i + 1:]
    else:
        pos = body.find(": ")
        if pos >= 0:
            key, rest = body[:pos], body[pos:]
        elif body.endswith(":"):
            key, rest = body[:-1], ":"
        else:
            key, rest = body, ""
    if rest.startswith(": "):
        return key, rest[2:], False
    return key, None, rest.startswith(":")


def _parse_key(key: str) -> AriaNode:
    role, _, rest = key.partition(" ")
    node = AriaNode(role=role)
    rest = rest.lstrip()
    if rest.startswith('"'):
        try:
            node.name, end = _DECODER.raw_decode(rest)
            rest = rest[end:]
        except json.JSONDecodeError:
            pass
    rest = rest.strip()
    if not (rest.startswith("[") and rest.endswith("]")):
        return node
    for item in rest[1:-1].split("] ["):
        k, eq, v = item.partition("=")
        if k == "ref" and v:
            node.ref = v
        elif k == "box" and v:
            try:
                x, y, w, h = (float(p) for p in v.split(","))
                node.box = (x, y, w, h)
            except ValueError:
                pass
        else:
            node.attrs[k] = v if eq else ""
    return node


def _fold_values(nodes: list[AriaNode]) -> None:
    """A text field with props shows its value as text children; make it the value."""
    for node in nodes:
        if node.role in VALUE_ROLES and node.text is None and node.children and all(
                c.role == "text" for c in node.children):
            node.text = " ".join(c.text or "" for c in node.children)
            node.children = []
        _fold_values(node.children)


class TreeTooDeep(ValueError):
    """The snapshot nests deeper than the bound (formatting it would exhaust the stack)."""


def parse_aria_snapshot(snapshot: str, max_depth: int | None = None) -> list[AriaNode]:
    """Parse the YAML-like text of `page.aria_snapshot(mode="ai")` into a node forest;
    TreeTooDeep past `max_depth` levels."""
    roots: list[AriaNode] = []
    stack: list[tuple[int, AriaNode]] = []
    for line in snapshot.splitlines():
        stripped = line.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        depth = (len(line) - len(stripped)) // 2
        if max_depth is not None and depth > max_depth:
            raise TreeTooDeep(f"the accessibility tree nests more than {max_depth} levels "
                              "deep (EnvConfig.max_page_depth)")
        key, value, _has_children = _split_entry(stripped[2:])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if key.startswith("/"):
            if parent is not None and value is not None:
                parent.props[key[1:]] = _unquote_value(value)
            continue
        if key == "text":
            node = AriaNode(role="text", text=_unquote_value(value or ""))
        else:
            node = _parse_key(key)
            if value is not None:
                node.text = _unquote_value(value)
        (parent.children if parent is not None else roots).append(node)
        stack.append((depth, node))
    _fold_values(roots)
    return roots


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class _Viewport:
    width: float
    height: float

    def shows(self, box: tuple[float, float, float, float] | None) -> bool:
        if box is None:
            return True
        x, y, w, h = box
        return w > 0 and h > 0 and x < self.width and y < self.height and x + w > 0 and y + h > 0


@dataclass
class TreeText:
    """The flattened tree, the focused element's id, every id it shows, and the ref prefix
    that maps numeric ids back to refs (`id_to_ref(id, ref_prefix)`)."""

    text: str
    focused: str | None
    ids: list[str]
    ref_prefix: str = ""
    # Viewport boxes (x, y, width, height) of the main document's elements by id, when the
    # snapshot was taken with boxes (iframe elements are left out: their boxes are relative
    # to their frame).
    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)


def _properties(node: AriaNode, parent_pointer: bool) -> list[str]:
    props: list[str] = []
    for key in ("checked", "disabled", "expanded", "active", "invalid", "level", "pressed",
                "selected"):
        if key in node.attrs:
            label = "focused" if key == "active" else key
            val = node.attrs[key]
            props.append(f"{label}={val}" if val else label)
    if node.role in VALUE_ROLES and node.text is not None:
        props.append(f"value={_one_line(node.text, 200)}")
    for key in ("url", "placeholder"):
        if key in node.props:
            props.append(f"{key}={_one_line(node.props[key], 200)}")
    if (node.attrs.get("cursor") == "pointer" and not parent_pointer
            and node.role not in INTERACTIVE_ROLES):
        props.append("clickable")
    return props


def format_tree(
    roots: list[AriaNode],
    *,
    visible_only: bool = False,
    viewport: tuple[float, float] | None = None,
    indent: str = "\t",
) -> TreeText:
    """Flatten parsed nodes into `[id] [role] [name] [properties]` lines.

    `visible_only` keeps nodes whose box (needs `boxes=True` in the snapshot) intersects the
    viewport, plus their ancestors."""
    vp = _Viewport(*viewport) if visible_only and viewport else None
    prefix = main_prefix_of(roots)
    lines: list[str] = []
    ids: list[str] = []
    boxes: dict[str, tuple[float, float, float, float]] = {}
    focused: str | None = None

    seen: dict[int, bool] = {}

    def shown(node: AriaNode) -> bool:
        if vp is None or node.role == "text":
            return True
        key = id(node)
        if key not in seen:
            seen[key] = vp.shows(node.box) or any(
                shown(c) for c in node.children if c.role != "text")
        return seen[key]

    def emit_text(text: str, depth: int, context_name: str,
                  neighbours: tuple[str, ...] = ()) -> None:
        text = _one_line(text)
        if not text or (context_name and text in context_name) or any(
                text in n for n in neighbours):
            return
        lines.append(f"{indent * depth}[] [StaticText] [{_escape(text)}]")

    def visit(node: AriaNode, depth: int, context_name: str, parent_pointer: bool,
              top: bool, neighbours: tuple[str, ...] = ()) -> None:
        nonlocal focused
        if node.role == "text":
            emit_text(node.text or "", depth, context_name, neighbours)
            return
        if not shown(node):
            return
        node_id = ref_to_id(node.ref, prefix) if node.ref else None
        pointer = node.attrs.get("cursor") == "pointer"
        if "active" in node.attrs and not top and node_id:
            focused = node_id
        skip = node.role in SKIPPED_ROLES and not (pointer and not parent_pointer and node_id)
        if skip:
            if node.text is not None:
                emit_text(node.text, depth, context_name, neighbours)
            visit_children(node, depth, context_name, parent_pointer or pointer)
            return
        name = node.name
        extra_text: str | None = None
        if node.text is not None and node.role not in VALUE_ROLES:
            if not name:
                name = node.text
            elif node.text not in name:
                extra_text = node.text
        props = _properties(node, parent_pointer)
        line = f"{indent * depth}[{node_id or ''}] [{node.role}] [{_escape(_one_line(name))}]"
        if props:
            line += f" [{', '.join(_escape(p) for p in props)}]"
        lines.append(line)
        if node_id:
            ids.append(node_id)
            if node.box is not None and node_id.isdigit():
                boxes[node_id] = node.box
        if extra_text:
            emit_text(extra_text, depth + 1, name)
        visit_children(node, depth + 1, name, parent_pointer or pointer)

    def visit_children(node: AriaNode, depth: int, context_name: str, pointer: bool) -> None:
        kids = node.children
        for i, child in enumerate(kids):
            # Text next to an element whose name contains it is a label already in that name.
            near = tuple(k.name for k in kids[max(0, i - 1):i + 2] if k is not child and k.name)
            visit(child, depth, context_name, pointer, False, near)

    for root in roots:
        visit(root, 0, "", False, True)
    return TreeText(text="\n".join(lines), focused=focused, ids=ids, ref_prefix=prefix,
                    boxes=boxes)
