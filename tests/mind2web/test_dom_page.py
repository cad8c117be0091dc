"""`CleanedPage` (one parsed page shared by ranking and every prompt of its step) gives the
results of the functions it runs (`candidate_texts`, `prune_tree` + `tree_repr`) with its
shared index and caches: the real SeeAct page, Mind2Web-sized synthetic pages, and generated
documents full of edge cases (Unicode whitespace, entities, CDATA, namespaces, duplicate and
empty ids, dull values)."""

from __future__ import annotations

import random
from xml.sax.saxutils import escape, quoteattr

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webtraj.dom.candidate_text import candidate_texts
from webtraj.dom.cleaned import index_ids, parse_cleaned_html
from webtraj.dom.page import CleanedPage
from webtraj.dom.prune import prune_tree
from webtraj.dom.tree_repr import tree_repr
from webtraj.formats.mind2web.synthetic import synthetic_page


def test_the_page_is_pure_python():
    # The compiled twin was removed (docs/performance.md); a stale build left in a checkout
    # is never imported.
    from pathlib import Path

    import webtraj.dom.page

    dom = Path(webtraj.dom.page.__file__).parent
    assert not list(dom.glob("*.pyx")) and not list(dom.glob("*.pxi"))
    assert not [p for p in dom.glob("*.py") if "_accel" in p.read_text(encoding="utf-8")]


def _assert_same(root, ids, groups, *, fallback=None):
    """The shared page (one index, one meta cache across calls) gives what each function
    gives on its own."""
    page = CleanedPage(root)
    assert dict(page.index) == index_ids(root)
    for max_words, depth in ((30, 4), (3, 2), (0, 0)):
        assert page.candidate_texts(ids, fallback=fallback, max_words=max_words,
                                    path_depth=depth) == candidate_texts(
            root, ids, fallback=fallback, max_words=max_words, path_depth=depth)
    for group in groups:
        for kw in ({}, {"brackets": False, "text_words": 3, "choice_tokens": 4},
                   {"max_depth": 1, "max_children": 2, "max_sibling": 1}):
            prune_kw = {k: kw[k] for k in ("max_depth", "max_children", "max_sibling")
                        if k in kw}
            repr_kw = {k: kw[k] for k in ("brackets", "text_words", "choice_tokens")
                       if k in kw}
            a = page.pruned_tree(group, **kw)
            b = tree_repr(prune_tree(root, group, **prune_kw), **repr_kw)
            assert (a.text, a.id_mapping, a.choices) == (b.text, b.id_mapping, b.choices), kw


def test_real_seeact_page_and_prompts(real_step_path):
    for raw in real_step_path.read_bytes().splitlines():
        line = orjson.loads(raw)
        root = parse_cleaned_html(line["cleaned_html"])
        cands = line["pos_candidates"] + line["neg_candidates"]
        ids = [c["backend_node_id"] for c in cands] + ["missing"]
        top = [c["backend_node_id"] for c in sorted(cands, key=lambda c: c["rank"])[:50]]
        groups = [top[i:i + 5] for i in range(0, 50, 5)] + [[c[0] for c in line["choices"]]]
        _assert_same(root, ids, groups, fallback={"missing": "div x"})
        # The shared page reproduces SeeAct's prompt byte for byte too.
        tr = CleanedPage(root).pruned_tree([c[0] for c in line["choices"]])
        assert tr.text == line["context_html"]


@pytest.mark.parametrize("seed", range(6))
def test_synthetic_mind2web_pages(seed):
    rng = random.Random(seed)
    page, target = synthetic_page(rng, rng.choice([60, 400, 1500]),
                                  ("button", "Search hotels", {"type": "submit"}))
    root = parse_cleaned_html(page.html)
    ids = list(page.ids)
    top = [target] + rng.sample(ids, min(49, len(ids)))
    _assert_same(root, ids, [top[i:i + 5] for i in range(0, len(top), 5)])


# Edge-case documents -------------------------------------------------------------------

# Every character `str.split()` splits on that XML allows.
_WS = ["  ", *(c for c in map(chr, range(0x3001))
               if c.isspace() and c not in "\x0b\x0c\x1c\x1d\x1e\x1f")]
_WORDS = ["Search", "search", "TRUE", "none", "Hidden", "http://x.y/z", "https", "caf\u00e9",
          "\u6771\u4eac", "a\"b", "x&y", "<tag>", "averyveryverylongword", "", "null", "undefined"]
_ATTRS = ["alt", "aria_label", "aria_role", "role", "type", "title", "name", "value",
          "placeholder", "text_value", "class", "label", "input_value", "href", "data_x"]
_TAGS = ["div", "span", "a", "button", "input", "select", "option", "li", "html", "body",
         "form", "svg"]

phrases = st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_WS)),
                   max_size=6).map(lambda ps: "".join(w + s for w, s in ps))


@st.composite
def element(draw, depth=0):
    tag = draw(st.sampled_from(_TAGS))
    prefix = "x:" if draw(st.integers(0, 9)) == 0 else ""
    attrs = {}
    id_kind = draw(st.integers(0, 9))
    if id_kind < 7:
        attrs["backend_node_id"] = str(draw(st.integers(1, 40)))  # duplicates happen
    elif id_kind == 7:
        attrs["backend_node_id"] = ""
    for name in draw(st.lists(st.sampled_from(_ATTRS), max_size=4, unique=True)):
        attrs[name] = draw(phrases)
    if draw(st.integers(0, 12)) == 0:
        attrs["x:title"] = "namespaced"
    attr_s = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    parts = []
    n_children = draw(st.integers(0, 4 if depth < 4 else 0))
    for _ in range(n_children):
        kind = draw(st.integers(0, 9))
        if kind < 4:
            parts.append(draw(text_element()))
        elif kind == 4:
            parts.append("<?pi data?>")
        elif kind == 5:
            parts.append("<!-- comment -->")
        else:
            parts.append(draw(element(depth + 1)))
    return f"<{prefix}{tag}{attr_s}>{''.join(parts)}</{prefix}{tag}>"


@st.composite
def text_element(draw):
    body = escape(draw(phrases))
    shape = draw(st.integers(0, 5))
    if shape == 0:  # split across text and CDATA nodes, words run across the split
        body = body + "<![CDATA[" + draw(st.sampled_from(["more", " cd", "x ]"])) + "]]>tail"
    elif shape == 1:  # an entity reference left unresolved ends the element's text
        body = body + "&ent;after"
    elif shape == 2:
        body = body + "<b backend_node_id='99'><text>inner words</text></b>late"
    bid = f" backend_node_id='{draw(st.integers(1, 40))}'" if draw(st.booleans()) else ""
    return f"<text{bid}>{body}</text>"


@st.composite
def document(draw):
    ns = " xmlns='urn:default'" if draw(st.integers(0, 15)) == 0 else ""
    inner = "".join(draw(st.lists(element(), min_size=1, max_size=4)))
    return ("<!DOCTYPE html [<!ENTITY ent 'entity value'>]>"
            f"<html backend_node_id='0' xmlns:x='urn:x'{ns}><body backend_node_id='100'>"
            f"{inner}</body></html>")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=document(), extra=st.lists(st.sampled_from(["", "0", "7", "nope", "99"]),
                                        max_size=3), seed=st.integers(0, 2**16))
def test_generated_edge_cases(doc, extra, seed):
    root = parse_cleaned_html(doc)
    ids = list(index_ids(root)) + extra
    rng = random.Random(seed)
    groups = [rng.sample(ids, min(len(ids), k)) for k in (1, 3, 5)] + [extra]
    _assert_same(root, ids, groups, fallback={"nope": "fallback text"})


def test_entity_and_cdata_values_use_lxml_semantics():
    doc = ("<!DOCTYPE html [<!ENTITY ent 'ent value'>]><html backend_node_id='1'>"
           "<button backend_node_id='2' title='a &ent; b' aria_label='x\u00a0\u00a0y'>"
           "<text>one<![CDATA[two three]]>four &ent; gone</text></button></html>")
    root = parse_cleaned_html(doc)
    page = CleanedPage(root)
    assert page.candidate_texts(["2"]) == candidate_texts(root, ["2"])
    text = page.candidate_texts(["2"])["2"]
    assert text.startswith("button a ent value b x y onetwo threefour")
    assert "gone" not in text


def test_index_is_a_read_only_mapping_of_first_occurrences():
    root = parse_cleaned_html("<html backend_node_id='1'><a backend_node_id='2'/>"
                              "<b backend_node_id='2'/><i backend_node_id=''/></html>")
    fast = CleanedPage(root).index
    assert len(fast) == 2 and set(fast) == {"1", "2"} and "" not in fast
    assert fast["2"].tag == "a" and fast.get("3") is None and 2 not in fast
    with pytest.raises(KeyError):
        fast["3"]
    assert dict(fast.items()) == index_ids(root)


def test_meta_words_order_caps_and_unicode_lowercasing():
    five = "Alpha beta GAMMA delta epsilon zeta"
    attrs = {name: f"{name} {five}" for name in
             ("class", "role", "aria_role", "type", "alt", "aria_description", "aria_label",
              "label", "title", "name", "text_value", "value", "placeholder")}
    attrs.update({"input_checked": "HTTP://Example", "input_value": "Presentation",
                  "option_selected": "averyveryverylongword short"})
    cases = [attrs, {"title": "\u00c9COLE \u0130stanbul", "alt": "caf\u00e9 \u00c9COLE"},
             {"role": "Button", "aria_role": "button", "type": " none "}]
    for i, case in enumerate(cases):
        attr_s = "".join(f" {k}={quoteattr(v)}" for k, v in case.items())
        root = parse_cleaned_html(f"<html backend_node_id='1'><body backend_node_id='2'>"
                                  f"<button backend_node_id='3'{attr_s}><text>go</text></button>"
                                  f"<a backend_node_id='4'><text>x</text></a></body></html>")
        a = CleanedPage(root).pruned_tree(["3", "4"])
        b = tree_repr(prune_tree(root, ["3", "4"]))
        assert (a.text, a.choices) == (b.text, b.choices), i
    assert len(a.text.split()) > 8  # the last case: both heads and their texts are there
