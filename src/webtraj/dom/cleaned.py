"""Parsing Mind2Web `cleaned_html` (XML: `backend_node_id` on elements, text in `<text>`)."""

from __future__ import annotations

from lxml import etree

ID_ATTR = "backend_node_id"
TEXT_TAG = "text"
# Salient attributes kept by Mind2Web's cleaning (REFERENCE.md §1).
SALIENT_ATTRIBUTES = ("alt", "aria_description", "aria_label", "aria_role", "input_checked",
                      "input_value", "label", "name", "option_selected", "placeholder", "role",
                      "text_value", "title", "type", "value")

_PARSER = etree.XMLParser(huge_tree=True, remove_comments=True, resolve_entities=False,
                          no_network=True)


class DomParseError(ValueError):
    """cleaned_html that lxml cannot read as XML."""


def parse_cleaned_html(text: str | bytes) -> etree._Element:
    if not text:
        raise DomParseError("empty cleaned_html")
    try:
        data = text.encode() if isinstance(text, str) else text
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise DomParseError(f"cleaned_html is not well-formed XML: {exc}") from None


_ALL_IDS = etree.XPath("//@backend_node_id", smart_strings=False)
_ALL_WITH_ID = etree.XPath("//*[@backend_node_id]")


def index_ids(root: etree._Element) -> dict[str, etree._Element]:
    """backend_node_id -> element (first occurrence wins, as an XPath lookup would; an empty
    id is no id). Both lists come from libxml2 in document order; reversing makes the first
    occurrence win."""
    index = dict(zip(reversed(_ALL_IDS(root)), reversed(_ALL_WITH_ID(root)), strict=True))
    index.pop("", None)
    return index
