"""Reading the accessibility-tree text back into elements: lives in `webtraj.dom.tree_text`
(the recorder and the Mind2Web export read it too); kept here for agents' imports."""

from webtraj.dom.tree_text import PageElement, parse_tree

__all__ = ["PageElement", "parse_tree"]
