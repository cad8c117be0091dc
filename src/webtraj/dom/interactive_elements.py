"""The interactive-element summary of the Multimodal-Mind2Web cookbook: elements picked by XPath
priority (buttons,
then links and clickables, inputs, labels and forms, headings and navigation), capped at
`max_items`, one line each: `<tag key-attrs>text (30 chars max)</tag>`.

Unlike the seed, an element matched by two queries is listed once, and the cleaned-html
spelling of attributes (`aria_label`) counts as `aria-label`."""

from __future__ import annotations

from lxml import etree, html

PRIORITY_XPATHS = (
    "//button | //input[@type='submit'] | //input[@type='button']",
    "//a[@href] | //*[@role='button'] | //*[@onclick]",
    "//input[not(@type='hidden')] | //select | //textarea",
    "//label | //form",
    "//h1 | //h2 | //h3 | //nav | //*[@role='navigation']",
)
KEY_ATTRS = ("id", "type", "placeholder", "href", "role", "aria-label", "value", "name")
MAX_TEXT = 30


def _parse(source: str) -> etree._Element:
    return html.document_fromstring(source)


def _text(el: etree._Element) -> str:
    text = (el.text or "").strip()
    if not text:
        text = " ".join(t.strip() for t in el.xpath(".//text()") if t.strip())
    return text.strip()[:MAX_TEXT]


def _attr(el: etree._Element, name: str) -> str | None:
    v = el.get(name)
    if v is None and "-" in name:
        v = el.get(name.replace("-", "_"))
    return v


def interactive_summary(source: str, max_items: int = 50) -> str:
    """One line per important element; a message instead of an exception for bad input."""
    if not source or not source.strip():
        return "No HTML content provided"
    try:
        root = _parse(source)
    except (etree.ParserError, ValueError) as exc:
        return f"Error parsing HTML: {exc}"
    picked: list[etree._Element] = []
    seen: set[etree._Element] = set()
    for query in PRIORITY_XPATHS:
        if len(picked) >= max_items:
            break
        for el in root.xpath(query):
            if el in seen:
                continue
            if len(picked) >= max_items:
                break
            seen.add(el)
            picked.append(el)
    lines = []
    for el in picked:
        attrs = " ".join(f'{k}="{v}"' for k in KEY_ATTRS if (v := _attr(el, k)) is not None)
        head = f"{el.tag} {attrs}" if attrs else str(el.tag)
        lines.append(f"<{head}>{_text(el)}</{el.tag}>")
    return "\n".join(lines)


def format_previous_actions(actions: list[str], max_actions: int = 3) -> str:
    """The last `max_actions` actions, numbered, with a header when some are left out."""
    if not actions:
        return "None"
    recent = actions[-max_actions:]
    body = "\n".join(f"{i + 1}. {a}" for i, a in enumerate(recent))
    if len(actions) > max_actions:
        body = f"Showing {max_actions} most recent of {len(actions)} total actions\n" + body
    return body
