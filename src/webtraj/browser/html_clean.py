"""Cleaned HTML for observations: no scripts, styles or comments; only the attributes that
help an agent or a ranker tell elements apart."""

from __future__ import annotations

import lxml.html
from lxml import etree

from webtraj.browser.passwords import MASK

DROP_TAGS = ("script", "style", "noscript", "template", "link", "meta", "svg", "canvas")
KEEP_ATTRS = frozenset({
    "id", "name", "type", "value", "placeholder", "href", "title", "alt", "for", "role",
    "label", "checked", "selected", "disabled", "required", "readonly", "multiple", "src",
    "action", "method", "tabindex", "contenteditable",
})


def clean_html(html: str) -> str:
    """Strip what an agent cannot use; keep `aria-*` attributes and those in KEEP_ATTRS."""
    if not html.strip():
        return ""
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return ""
    etree.strip_elements(root, *DROP_TAGS, etree.Comment, etree.ProcessingInstruction,
                         with_tail=False)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in list(el.attrib):
            if attr not in KEEP_ATTRS and not attr.startswith("aria-"):
                del el.attrib[attr]
        if el.tag == "input" and el.attrib.get("type", "").lower() == "password" \
                and el.attrib.get("value"):
            el.attrib["value"] = MASK  # a page may write a password into the attribute
        href = el.attrib.get("href", "")
        if href.lower().startswith("javascript:"):
            del el.attrib["href"]
    head = root.find("head")
    if head is not None:
        title = head.find("title")
        head.clear()
        if title is not None:
            head.append(title)
    return lxml.html.tostring(root, encoding="unicode")
