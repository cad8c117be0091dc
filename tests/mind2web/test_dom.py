"""DOM processing: pruning and the bracketed tree reproduce the real SeeAct prompts; live
HTML cleaning; candidate texts; the seed-000 element summary."""

from __future__ import annotations

import orjson
import pytest

from webtraj.dom import (
    DomParseError,
    candidate_texts,
    choice_texts,
    clean_live_html,
    index_ids,
    interactive_summary,
    parse_cleaned_html,
    prune_tree,
    tree_repr,
)
from webtraj.dom.interactive_elements import format_previous_actions


@pytest.fixture(scope="module")
def seeact_lines(real_step_path):
    return [orjson.loads(line) for line in real_step_path.read_bytes().splitlines()]


def test_pruned_tree_and_choices_match_seeact_exactly(seeact_lines):
    for line in seeact_lines:
        root = parse_cleaned_html(line["cleaned_html"])
        ids = [c[0] for c in line["choices"]]
        pruned = prune_tree(root, ids, index=index_ids(root))
        tr = tree_repr(pruned)
        assert tr.text == line["context_html"]
        assert [list(c) for c in choice_texts(pruned, tr.id_mapping)] == line["choices"]


def test_parenthesis_form_and_missing_candidates(seeact_lines):
    root = parse_cleaned_html(seeact_lines[0]["cleaned_html"])
    pruned = prune_tree(root, ["8635", "no-such-id"])
    text = tree_repr(pruned, brackets=False).text
    assert "(button id=0 submit search" in text and "<" not in text


def test_candidate_text_has_tag_text_attributes_and_path(real_step):
    root = parse_cleaned_html(real_step.cleaned_html)
    texts = candidate_texts(root, ["8635", "missing"], fallback={"missing": "div x"})
    assert texts["8635"].startswith("button Search submit Search")
    assert " | form" in texts["8635"]
    assert texts["missing"] == "div x"


def test_unparseable_html():
    with pytest.raises(DomParseError):
        parse_cleaned_html("<html><div></html>")
    with pytest.raises(DomParseError):
        parse_cleaned_html("")


LIVE = """<html><head><title>t</title><script>var x=1;</script><style>p{}</style></head>
<body><div hidden>secret</div><div style="display: none">gone</div>
<form><label for=c>City</label>
<input id=c aria-label="Pick-up city" type=text value="Bos" class="big">
<input type=hidden name=csrf value=123>
<select name=kind><option selected>Pickup</option><option>Delivery</option></select>
<button type=submit onclick="go()">Search <b>now</b></button></form>
<a href="/deals">Deals &amp; offers</a></body></html>"""


def test_clean_live_html_matches_the_cleaned_form():
    cleaned = clean_live_html(LIVE)
    root = parse_cleaned_html(cleaned)
    assert "secret" not in cleaned and "gone" not in cleaned and "var x" not in cleaned
    assert "csrf" not in cleaned and "class=" not in cleaned
    assert all(el.get("backend_node_id") for el in root.iter() if el.tag != "text")
    inp = root.xpath("//input")[0]
    assert inp.get("aria_label") == "Pick-up city" and inp.get("input_value") == "Bos"
    assert root.xpath("//option")[0].get("option_selected") == "true"
    assert root.xpath("//button/text")[0].text == "Search"
    assert root.xpath("//a/text")[0].text == "Deals & offers"
    # The cleaned page goes through the same pruning and prompt path as dataset pages.
    button = root.xpath("//button")[0].get("backend_node_id")
    assert "submit" in tree_repr(prune_tree(root, [button])).text


def test_interactive_summary_priority_cap_and_text():
    summary = interactive_summary(LIVE, max_items=4).splitlines()
    assert summary[0] == '<button type="submit">Search</button>'  # own text first
    assert len(summary) == 4
    assert summary[1].startswith('<a href="/deals">Deals & offers')
    full = interactive_summary(LIVE, max_items=50)
    assert 'aria-label="Pick-up city"' in full and "csrf" not in full
    long = interactive_summary('<a href="x">' + "y" * 80 + "</a>")
    assert long == '<a href="x">' + "y" * 30 + "</a>"
    assert interactive_summary("") == "No HTML content provided"


def test_interactive_summary_reads_cleaned_html(real_step):
    lines = interactive_summary(real_step.cleaned_html, max_items=200).splitlines()
    assert any(line.startswith('<button type="submit" aria-label="Search">') for line in lines)


def test_previous_actions_header():
    assert format_previous_actions([]) == "None"
    text = format_previous_actions(["a", "b", "c", "d", "e"])
    assert text.splitlines() == ["Showing 3 most recent of 5 total actions", "1. c", "2. d",
                                 "3. e"]
