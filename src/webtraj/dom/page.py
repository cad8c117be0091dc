"""One parsed Mind2Web page and the work done on it: candidate texts for ranking and the
pruned bracketed tree of every prompt. A step's page is read once and shared by all of them.

The compiled fast path (`webtraj.dom._accel`, built at install time when a C compiler is
there) gives the same results as the pure-Python functions it mirrors, several times faster;
`WEBTRAJ_DOM_PURE=1` or `accelerated=False` selects the pure-Python path."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType

from lxml import etree

from webtraj.dom.candidate_text import candidate_texts
from webtraj.dom.cleaned import index_ids, parse_cleaned_html
from webtraj.dom.prune import prune_tree
from webtraj.dom.tree_repr import TreeRepr, tree_repr


def _load_accel() -> tuple[ModuleType | None, str]:
    try:
        from webtraj.dom import _accel
    except ImportError as exc:  # not built, or built against an incompatible lxml
        return None, f"compiled dom fast path unavailable ({exc}); using pure Python"
    except ValueError as exc:  # lxml's C structures changed size since the build
        return None, f"compiled dom fast path does not match this lxml ({exc})"
    return _accel, "compiled fast path built"


ACCEL, ACCEL_STATUS = _load_accel()


def accelerated_default() -> bool:
    return ACCEL is not None and os.environ.get("WEBTRAJ_DOM_PURE", "") in ("", "0")


class CleanedPage:
    """A cleaned_html tree with its backend_node_id index and per-page caches."""

    def __init__(self, root: etree._Element, *, accelerated: bool | None = None) -> None:
        use = accelerated_default() if accelerated is None else accelerated
        if use and ACCEL is None:
            raise RuntimeError(ACCEL_STATUS)
        self.root = root
        self.accelerated = use
        self.index: Mapping[str, etree._Element] = (ACCEL.NodeIndex(root) if use and ACCEL
                                                     else index_ids(root))
        self._meta_cache: dict[etree._Element, str] = {}

    @classmethod
    def parse(cls, text: str | bytes, *, accelerated: bool | None = None) -> CleanedPage:
        """Raises DomParseError for text that is not well-formed cleaned_html."""
        return cls(parse_cleaned_html(text), accelerated=accelerated)

    def candidate_texts(self, ids: Iterable[str], *, fallback: Mapping[str, str] | None = None,
                        max_words: int = 30, path_depth: int = 4) -> dict[str, str]:
        """See `candidate_text.candidate_texts`."""
        if self.accelerated and ACCEL is not None:
            return ACCEL.candidate_texts(self.index, ids, fallback, max_words, path_depth)
        return candidate_texts(self.root, ids, index=self.index, fallback=fallback,
                               max_words=max_words, path_depth=path_depth)

    def pruned_tree(self, candidates: Sequence[str], *, brackets: bool = True,
                    text_words: int = 20, choice_tokens: int = 10,
                    id_mapping: dict[str, int] | None = None, max_depth: int = 5,
                    max_children: int = 50, max_sibling: int = 3) -> TreeRepr:
        """The page pruned around `candidates` as the bracketed tree
        (`tree_repr(prune_tree(...))`)."""
        if self.accelerated and ACCEL is not None:
            text, ids, choices = ACCEL.pruned_tree_repr(
                self.root, self.index, candidates, max_depth, max_children, max_sibling,
                brackets, text_words, id_mapping, choice_tokens)
            return TreeRepr(text, ids, choices)
        pruned = prune_tree(self.root, candidates, index=self.index, max_depth=max_depth,
                            max_children=max_children, max_sibling=max_sibling,
                            meta_cache=self._meta_cache)
        return tree_repr(pruned, brackets=brackets, text_words=text_words,
                         id_mapping=id_mapping, choice_tokens=choice_tokens)
