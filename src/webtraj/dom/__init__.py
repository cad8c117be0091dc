"""DOM layer: cleaned_html parsing, candidate text, pruning around candidates, the compact
bracketed tree used in multiple-choice prompts, live-HTML cleaning and element summaries.

`CleanedPage` is the entry point for work on one page (it uses the compiled fast path when
built); the functions below are its pure-Python reference."""

from webtraj.dom.candidate_text import candidate_texts, element_text
from webtraj.dom.clean_live import clean_live_html
from webtraj.dom.cleaned import DomParseError, index_ids, parse_cleaned_html
from webtraj.dom.interactive_elements import interactive_summary
from webtraj.dom.page import CleanedPage
from webtraj.dom.prune import keep_set, prune_tree
from webtraj.dom.tree_repr import TreeRepr, choice_texts, tree_repr

__all__ = ["CleanedPage", "DomParseError", "TreeRepr", "candidate_texts", "choice_texts",
           "clean_live_html", "element_text", "index_ids", "interactive_summary", "keep_set",
           "parse_cleaned_html", "prune_tree", "tree_repr"]
