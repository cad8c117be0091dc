"""One parsed Mind2Web page and the work done on it: candidate texts for ranking and the
pruned bracketed tree of every prompt. A step's page is read once and shared by all of them.

Pure Python on lxml: a compiled version was measured and removed (docs/performance.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lxml import etree

from webtraj.dom.candidate_text import candidate_texts
from webtraj.dom.cleaned import index_ids, parse_cleaned_html
from webtraj.dom.prune import prune_tree
from webtraj.dom.tree_repr import TreeRepr, tree_repr


class CleanedPage:
    """A cleaned_html tree with its backend_node_id index and per-page caches."""

    def __init__(self, root: etree._Element) -> None:
        self.root = root
        self.index: Mapping[str, etree._Element] = index_ids(root)
        self._meta_cache: dict[etree._Element, str] = {}

    @classmethod
    def parse(cls, text: str | bytes) -> CleanedPage:
        """Raises DomParseError for text that is not well-formed cleaned_html."""
        return cls(parse_cleaned_html(text))

    def candidate_texts(self, ids: Iterable[str], *, fallback: Mapping[str, str] | None = None,
                        max_words: int = 30, path_depth: int = 4) -> dict[str, str]:
        """See `candidate_text.candidate_texts`."""
        return candidate_texts(self.root, ids, index=self.index, fallback=fallback,
                               max_words=max_words, path_depth=path_depth)

    def pruned_tree(self, candidates: Sequence[str], *, brackets: bool = True,
                    text_words: int = 20, choice_tokens: int = 10,
                    id_mapping: dict[str, int] | None = None, max_depth: int = 5,
                    max_children: int = 50, max_sibling: int = 3) -> TreeRepr:
        """The page pruned around `candidates` as the bracketed tree
        (`tree_repr(prune_tree(...))`)."""
        pruned = prune_tree(self.root, candidates, index=self.index, max_depth=max_depth,
                            max_children=max_children, max_sibling=max_sibling,
                            meta_cache=self._meta_cache)
        return tree_repr(pruned, brackets=brackets, text_words=text_words,
                         id_mapping=id_mapping, choice_tokens=choice_tokens)
