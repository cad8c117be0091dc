"""Pruning a page around candidate elements (MindAct): keep each candidate, its ancestors,
its first descendants (depth <= 5, first 50 in document order) and up to 3 siblings on each
side; drop everything else. Kept nodes that carry nothing (no attributes, no text, at most one
child) are replaced by their child, so long wrapper chains shrink.

The result is a light `PNode` tree, not a copy of the lxml tree: pruning a 1 MB page for a
5-candidate prompt touches only the kept nodes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from lxml import etree

from webtraj.dom.cleaned import ID_ATTR, TEXT_TAG, index_ids
from webtraj.dom.meta import meta_words


@dataclass(slots=True)
class PNode:
    tag: str
    # The backend_node_id, only on candidate nodes (others lose it, as in MindAct).
    cand_id: str | None = None
    # Salient attribute words as the bracketed tree shows them (see `tree_repr.meta_words`).
    meta: str = ""
    # Children in order: PNode elements, or str for `<text>` nodes.
    children: list[PNode | str] = field(default_factory=list)


def _descendants(node: etree._Element, max_depth: int, depth: int = 0) -> list[etree._Element]:
    if depth > max_depth:
        return []
    out: list[etree._Element] = []
    for child in node:
        if not isinstance(child.tag, str):
            continue
        out.append(child)
        out.extend(_descendants(child, max_depth, depth + 1))
    return out


def keep_set(candidates: Iterable[str], index: Mapping[str, etree._Element], *,
             max_depth: int = 5, max_children: int = 50, max_sibling: int = 3) -> set[str]:
    """Ids to keep; "" stands for elements without an id (e.g. `<text>`)."""
    keep: set[str] = set()
    for cid in candidates:
        node = index.get(cid)
        if node is None:
            continue
        keep.add(cid)
        for anc in node.iterancestors():
            keep.add(anc.get(ID_ATTR, ""))
        for d in _descendants(node, max_depth)[:max_children]:
            keep.add(d.get(ID_ATTR, ""))
        parent = node.getparent()
        if parent is not None:
            sibs = [x for x in parent if isinstance(x.tag, str) and x.tag != TEXT_TAG]
            if node.tag == TEXT_TAG:  # a text node has no element siblings of its own
                continue
            i = sibs.index(node)
            for s in sibs[max(0, i - max_sibling): i + max_sibling + 1]:
                keep.add(s.get(ID_ATTR, ""))
    return keep


def _meta(el: etree._Element, bid: str,
          cache: dict[etree._Element, str] | None) -> tuple[bool, str]:
    """(has attributes besides the id, meta words); cached per page by element."""
    meta = cache.get(el) if cache is not None else None
    if meta is None:
        meta = meta_words(dict(el.items()))
        if cache is not None:
            cache[el] = meta
    return (len(el.attrib) > (1 if bid else 0)), meta


def _build(el: etree._Element, keep: set[str], cands: set[str], is_root: bool,
           cache: dict[etree._Element, str] | None) -> list[PNode | str]:
    """The pruned form of `el`: [] if dropped, [node] if kept, or its hoisted child."""
    bid = el.get(ID_ATTR, "")
    if bid not in keep and not is_root:
        return []
    children: list[PNode | str] = []
    has_text = False
    for child in el:
        tag = child.tag
        if tag == TEXT_TAG:
            # A text node survives whenever its parent does.
            children.append(child.text or "")
            has_text = True
        elif child.get(ID_ATTR, "") in keep and isinstance(tag, str):
            children.extend(_build(child, keep, cands, False, cache))
    has_attrs, meta = _meta(el, bid, cache)
    cand = bid if bid and bid in cands else None
    if not is_root and cand is None and not has_attrs and not has_text and len(children) <= 1:
        return children
    return [PNode(str(el.tag), cand, meta, children)]


def prune_tree(root: etree._Element, candidates: Iterable[str], *,
               index: Mapping[str, etree._Element] | None = None, max_depth: int = 5,
               max_children: int = 50, max_sibling: int = 3,
               meta_cache: dict[etree._Element, str] | None = None) -> PNode:
    """`meta_cache` (one dict per page) saves re-reading attributes across prompts."""
    cands = [str(c) for c in candidates]
    index = index if index is not None else index_ids(root)
    keep = keep_set(cands, index, max_depth=max_depth, max_children=max_children,
                    max_sibling=max_sibling)
    return _build(root, keep, set(cands), True, meta_cache)[0]
