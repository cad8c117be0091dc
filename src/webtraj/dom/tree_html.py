"""The accessibility-tree text as Mind2Web cleaned_html: elements carry `backend_node_id` =
the observation's element id and `<text>` children, so a live page (MindAct on a live page)
or a recorded demonstration (the Mind2Web export) is ranked and scored like dataset pages."""

from __future__ import annotations

from lxml import etree

from webtraj.dom.tree_text import parse_tree

# Roles an agent can act on: the candidates that get ranked.
ACTIONABLE = frozenset({"button", "link", "textbox", "searchbox", "combobox", "checkbox",
                        "radio", "option", "menuitem", "tab", "switch", "spinbutton", "slider",
                        "listbox", "gridcell", "menuitemcheckbox", "menuitemradio", "treeitem"})
_TAG_FOR_ROLE = {"textbox": "input", "searchbox": "input", "spinbutton": "input",
                 "combobox": "select", "link": "a", "heading": "h2", "listitem": "li",
                 "list": "ul", "paragraph": "p", "img": "img"}


def tree_to_cleaned_html(axtree: str) -> tuple[str, list[tuple[str, str]]]:
    """(XML in Mind2Web's cleaned_html form, [(element id, candidate text)] of actionable
    elements in page order)."""
    root = etree.Element("html")
    stack: list[tuple[int, etree._Element]] = [(-1, root)]
    candidates: list[tuple[str, str]] = []
    for el in parse_tree(axtree):
        while stack[-1][0] >= el.depth:
            stack.pop()
        node = etree.SubElement(stack[-1][1], _TAG_FOR_ROLE.get(el.role, "div"))
        if el.role not in ("generic", "StaticText"):
            node.set("role", el.role)
        if el.id:
            node.set("backend_node_id", el.id)
        for key in ("value", "placeholder"):
            if el.props.get(key):
                node.set(key, el.props[key])
        if el.name:
            etree.SubElement(node, "text").text = el.name
        stack.append((el.depth, node))
        if el.id and el.role in ACTIONABLE:
            extra = " ".join(f"{k}={v}" if v else k for k, v in el.props.items()
                             if k != "url")
            candidates.append((el.id, f"{el.role} {el.name} {extra}".strip()))
    return etree.tostring(root, encoding="unicode"), candidates
