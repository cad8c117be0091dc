"""The aria-snapshot parser and the `[id] [role] [name] [properties]` formatter (no browser)."""

from webtraj.browser.axtree import format_tree, id_to_ref, parse_aria_snapshot, ref_to_id

SNAPSHOT = """\
- generic [active] [ref=e1]:
  - heading "Find a stay" [level=1] [ref=e2]
  - text: City
  - textbox "City" [active] [ref=e4]:
    - /placeholder: Where to?
    - text: Paris
  - 'button "Time: 5 o''clock" [ref=e5]'
  - link "Item [1]" [ref=e6] [cursor=pointer]:
    - /url: /item/1
  - paragraph [ref=e7]: "Price: 12"
  - generic [ref=e8] [cursor=pointer]: Clickable div
  - generic [ref=e9]:
    - checkbox "Pets allowed" [checked] [ref=e10]
    - text: Pets allowed
  - iframe [ref=e11]:
    - generic [ref=f2e1]:
      - button "Inner" [ref=f2e2]
  - listitem: "\\x41 tab\\there"
"""


def test_parse_and_format():
    tree = format_tree(parse_aria_snapshot(SNAPSHOT))
    lines = tree.text.splitlines()
    assert lines[0] == "[2] [heading] [Find a stay] [level=1]"
    # The label text next to the field of the same name is dropped; the value is a property.
    assert lines[1] == "[4] [textbox] [City] [focused, value=Paris, placeholder=Where to?]"
    assert lines[2] == "[5] [button] [Time: 5 o'clock]"
    assert lines[3] == "[6] [link] [Item \\[1\\]] [url=/item/1]"
    assert lines[4] == "[7] [paragraph] [Price: 12]"
    assert lines[5] == "[8] [generic] [Clickable div] [clickable]"
    assert lines[6] == "[10] [checkbox] [Pets allowed] [checked]"
    assert lines[7] == "[11] [iframe] []"
    assert lines[8] == "\t[f2e2] [button] [Inner]"
    assert lines[9] == "[] [listitem] [A tab here]"
    assert len(lines) == 10
    assert tree.focused == "4"
    assert tree.ids == ["2", "4", "5", "6", "7", "8", "10", "11", "f2e2"]


def test_ids_after_navigation_keep_numbers():
    snap = '- generic [ref=f3e1]:\n  - button "Go" [ref=f3e2]\n  - iframe [ref=f3e3]:\n' \
           '    - button "In" [ref=f4e1]\n'
    tree = format_tree(parse_aria_snapshot(snap))
    assert tree.text.splitlines() == ["[2] [button] [Go]", "[3] [iframe] []",
                                      "\t[f4e1] [button] [In]"]
    assert tree.ref_prefix == "f3"
    assert id_to_ref("2", "f3") == "f3e2" and id_to_ref("f4e1", "f3") == "f4e1"
    assert ref_to_id("f3e2", "f3") == "2" and ref_to_id("e2") == "2"


def test_visible_only_keeps_nodes_in_viewport():
    snap = ("- generic [ref=e1] [box=0,0,800,3000]:\n"
            "  - button \"Top\" [ref=e2] [box=10,10,50,20]\n"
            "  - button \"Bottom\" [ref=e3] [box=10,2500,50,20]\n"
            "  - list [ref=e4] [box=0,2600,800,50]:\n"
            "    - listitem [ref=e5] [box=0,2600,800,20]: far away\n")
    roots = parse_aria_snapshot(snap)
    full = format_tree(roots)
    seen = format_tree(roots, visible_only=True, viewport=(800, 600))
    assert "Bottom" in full.text and "far away" in full.text
    assert seen.text == "[2] [button] [Top]"


def test_extraction_retries_when_a_frame_detaches():
    """A document replaced mid-extraction is retried; other errors are reported at once."""
    import asyncio

    import pytest
    from playwright.async_api import Error as PlaywrightError

    from webtraj.browser.config import EnvConfig
    from webtraj.browser.observe import ExtractionError, read_tree

    class FlakyPage:
        def __init__(self, errors):
            self.errors = list(errors)
            self.calls = 0

        async def aria_snapshot(self, **kw):
            self.calls += 1
            if self.errors:
                raise PlaywrightError(self.errors.pop(0))
            return '- button "Go" [ref=e2]'

        async def wait_for_load_state(self, *a, **kw):
            return None

        async def evaluate(self, script):  # the page's size, read before the tree
            return [10, 3]

    page = FlakyPage(["Frame was detached", "Execution context was destroyed"])
    tree = asyncio.run(read_tree(page, EnvConfig()))
    assert tree.text == "[2] [button] [Go]" and page.calls == 3
    page = FlakyPage(["Something else broke"])
    with pytest.raises(ExtractionError, match="Something else broke"):
        asyncio.run(read_tree(page, EnvConfig()))
    assert page.calls == 1
