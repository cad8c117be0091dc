"""Candidate element text for ranking (MindAct stage 1): the element's tag, its text and
salient attribute values, then the path of its ancestors (tag plus their salient values).

Text gathering stops after `max_words`, so a container holding half the page costs no more
than a button."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lxml import etree

from webtraj.dom.cleaned import ID_ATTR, SALIENT_ATTRIBUTES, TEXT_TAG, index_ids

_WRAPPERS = frozenset({"div", "span"})
SKIP_VALUES = frozenset({"", "true", "false", "none", "null", "undefined", "hidden"})


_SALIENT_SET = frozenset(SALIENT_ATTRIBUTES)


def attr_words(attrs: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """Salient attribute values (data order), without dull values, URLs or repeats."""
    items = attrs.items() if isinstance(attrs, Mapping) else attrs
    seen: list[str] = []
    for name, v in items:
        if name not in _SALIENT_SET:
            continue
        v = " ".join(v.split())
        if v.lower() in SKIP_VALUES or v.startswith("http") or v in seen:
            continue
        seen.append(v)
    return " ".join(seen)


def _el_attr_words(el: etree._Element) -> str:
    items = el.items()
    # Most elements carry only their backend_node_id.
    return attr_words(items) if len(items) > 1 else ""


def _text_words(el: etree._Element, max_words: int) -> str:
    words: list[str] = []
    for t in el.iter(TEXT_TAG):
        text = t.text
        if text:
            words += text.split()
            if len(words) >= max_words:
                return " ".join(words[:max_words])
    return " ".join(words)


class _Paths:
    """Ancestor paths, memoized per element so a page costs O(elements), not O(depth^2)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        # element -> (labels nearest first, the " | a > b" suffix they print as)
        self.cache: dict[etree._Element, tuple[tuple[str, ...], str]] = {}

    def of(self, el: etree._Element | None) -> tuple[tuple[str, ...], str]:
        """Labels of `el` and its ancestors, nearest first, at most `depth`."""
        if el is None:
            return (), ""
        hit = self.cache.get(el)
        if hit is not None:
            return hit
        up = self.of(el.getparent())
        aw = _el_attr_words(el)
        tag = el.tag
        # Bare wrappers (`div`, `span` with nothing salient) add only noise to the path.
        if tag in ("html", "body") or (not aw and tag in _WRAPPERS) or self.depth <= 0:
            out = up
        else:
            labels = ((f"{tag} {aw}" if aw else str(tag)), *up[0])[: self.depth]
            out = (labels, " | " + " > ".join(labels))
        self.cache[el] = out
        return out


def element_text(el: etree._Element, *, max_words: int = 30, path_depth: int = 4,
                 _paths: _Paths | None = None) -> str:
    """`tag attrs text | parent-tag attrs > grandparent-tag ...`"""
    aw = _el_attr_words(el)
    tw = _text_words(el, max_words)
    own = str(el.tag)
    if aw:
        own += " " + aw
    if tw:
        own += " " + tw
    return own + (_paths or _Paths(path_depth)).of(el.getparent())[1]


def candidate_texts(root: etree._Element, ids: Iterable[str], *,
                    index: Mapping[str, etree._Element] | None = None,
                    fallback: Mapping[str, str] | None = None, max_words: int = 30,
                    path_depth: int = 4) -> dict[str, str]:
    """Text for each candidate id; ids absent from the page use `fallback` (e.g. the
    candidate's tag and attributes from the data) or the empty string."""
    index = index if index is not None else index_ids(root)
    paths = _Paths(path_depth)
    out: dict[str, str] = {}
    for bid in ids:
        el = index.get(bid)
        if el is None:
            out[bid] = (fallback or {}).get(bid, "")
        else:
            out[bid] = element_text(el, max_words=max_words, _paths=paths)
    return out


def attributes_text(tag: str, attrs: Mapping[str, str]) -> str:
    """Text of a candidate known only from its data record (no page available)."""
    return " ".join(p for p in (tag, attr_words(attrs)) if p)


__all__ = ["ID_ATTR", "attr_words", "attributes_text", "candidate_texts", "element_text"]
