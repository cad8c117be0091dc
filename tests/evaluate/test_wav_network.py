"""NetworkEventEvaluator: every config key and every REFERENCE.md §3a network point."""

from __future__ import annotations

import base64

import pytest

# The site URLs the `wav` fixture is configured with (see conftest.py).
ADMIN = "http://shop.test:7780/admin"
SHOP = "http://shop.test:7770"
GITLAB = "http://git.test:8023"


def cfg(url="__SHOPPING__/p", **expected) -> dict:
    return {"expected": {"url": url, **expected}}


# §3a.1: http_method defaults to GET and response_status to 200; both always compared.
def test_put_without_status_must_return_200(wav, mk):
    c = cfg("__SHOPPING__/api/item", http_method="PUT")
    assert wav.status(c, [mk(SHOP + "/api/item", "PUT", 200)]) == "success"
    assert wav.status(c, [mk(SHOP + "/api/item", "PUT", 302)]) == "failure"


def test_method_defaults_to_get(wav, mk):
    assert wav.status(cfg(), [mk(SHOP + "/p", "POST")]) == "failure"
    assert wav.status(cfg(), [mk(SHOP + "/p", "GET")]) == "success"


def test_response_status_is_compared(wav, mk):
    c = cfg(response_status=302)
    assert wav.status(c, [mk(SHOP + "/p", status=302)]) == "success"
    assert wav.status(c, [mk(SHOP + "/p", status=200)]) == "failure"


# §3a.2: navigate task + GET: only the last navigation of the whole trace is judged.
def test_navigate_judges_last_navigation_only(wav, mk):
    target = mk(SHOP + "/p", nav=True)
    later_nav = mk(SHOP + "/other", nav=True)
    later_xhr = mk(SHOP + "/api/poll", headers={"accept": "application/json"})
    assert wav.status(cfg(), [target], task_type="NAVIGATE") == "success"
    assert wav.status(cfg(), [target, later_nav], task_type="NAVIGATE") == "failure"
    assert wav.status(cfg(), [target, later_xhr], task_type="NAVIGATE") == "success"
    # A non-navigation GET to the target does not count for a navigate task.
    assert wav.status(cfg(), [mk(SHOP + "/p")], task_type="NAVIGATE") == "failure"


# §3a.3: a document GET accepting text/html is a navigation even without Sec-Fetch-User.
def test_accept_html_without_sec_fetch_user_is_navigation(wav, mk):
    e = mk(SHOP + "/p", headers={"accept": "text/html,*/*"})
    assert wav.status(cfg(), [e], task_type="NAVIGATE") == "success"
    # With sec-fetch-user present, all four navigation headers are required.
    partial = mk(SHOP + "/p", headers={"accept": "text/html", "sec-fetch-user": "?1",
                                       "sec-fetch-mode": "cors"})
    assert wav.status(cfg(), [partial], task_type="NAVIGATE") == "failure"


# §3a.4: last_event_only (default) judges the last match only.
def test_last_event_only(wav, mk):
    c = cfg("__SHOPPING__/api/x", http_method="POST")
    good, bad = mk(SHOP + "/api/x", "POST", 200), mk(SHOP + "/api/x", "POST", 500)
    assert wav.status(c, [good, bad]) == "failure"
    assert wav.status(c, [bad, good]) == "success"
    c_any = {**c, "last_event_only": False}
    assert wav.status(c_any, [good, bad]) == "success"
    assert wav.status(c_any, [bad, bad]) == "failure"


# §3a.5: static assets by URL path suffix; a fragment stays in the compared URL.
def test_static_assets_by_path(wav, mk):
    assert wav.status(cfg("__SHOPPING__/app.js"), [mk(SHOP + "/app.js")]) == "failure"
    assert wav.status(cfg("__SHOPPING__/a;b.js"), [mk(SHOP + "/a;b.js")]) == "success"
    assert wav.status(cfg("__SHOPPING__/app.js"), [mk(SHOP + "/app.js?v=1")]) == "failure"


def test_fragment_breaks_literal_url(wav, mk):
    assert wav.status(cfg(), [mk(SHOP + "/p#top")]) == "failure"
    assert wav.status(cfg("^__SHOPPING__/p.*$"), [mk(SHOP + "/p#top")]) == "success"


# §3a.6: literal URLs ignore path case, trailing slash, host case and default port.
@pytest.mark.parametrize("url", [SHOP + "/P/", "http://SHOP.test:7770/p", SHOP + "/p/"])
def test_literal_url_tolerances(wav, mk, url):
    assert wav.status(cfg(), [mk(url)]) == "success"


def test_default_port_dropped(wav, mk):
    wav.site_urls = type(wav.site_urls)({"shopping": "http://plain.test"})
    c = cfg("__SHOPPING__/p")
    assert wav.status(c, [mk("http://plain.test:80/p")], sites=("shopping",)) == "success"


@pytest.mark.parametrize("url", ["https://shop.test:7770/p", "http://evil.test:7770/p",
                                 "http://shop.test:7771/p"])
def test_other_scheme_or_host_fails(wav, mk, url):
    assert wav.status(cfg(), [mk(url)]) == "failure"


def test_regex_url_is_case_sensitive(wav, mk):
    assert wav.status(cfg("^__SHOPPING__/p/\\d+$"), [mk(SHOP + "/p/12")]) == "success"
    assert wav.status(cfg("^__SHOPPING__/p/\\d+$"), [mk(SHOP + "/P/12")]) == "failure"


def test_url_alternatives(wav, mk):
    c = cfg(["__SHOPPING__/a", "__SHOPPING__/b"])
    assert wav.status(c, [mk(SHOP + "/b")]) == "success"
    assert wav.status(c, [mk(SHOP + "/c")]) == "failure"


def test_longest_site_url_wins(wav, mk):
    c = cfg("__SHOPPING_ADMIN__/sales/order")
    assert wav.status(c, [mk(ADMIN + "/sales/order/")]) == "success"
    assert wav.status(cfg("__SHOPPING__/admin/sales/order"), [mk(ADMIN + "/sales/order")]) \
        == "failure"


# §3a.7: query parameters.
def test_extra_query_param_fails_unless_ignored(wav, mk):
    e = [mk(SHOP + "/search?q=shoes&page=2")]
    assert wav.status(cfg("__SHOPPING__/search?q=shoes"), e) == "failure"
    assert wav.status({**cfg("__SHOPPING__/search?q=shoes"),
                       "ignored_query_params": ["page"]}, e) == "success"


def test_ignored_query_params_patterns_case_insensitive_search(wav, mk):
    e = [mk(SHOP + "/search?q=shoes&Paging_Size=20&sort=asc")]
    c = {**cfg("__SHOPPING__/search?q=shoes"), "ignored_query_params_patterns": ["^paging", "sor"]}
    assert wav.status(c, e) == "success"
    c2 = {**cfg("__SHOPPING__/search?q=shoes"), "ignored_query_params_patterns": ["^paging"]}
    assert wav.status(c2, e) == "failure"


def test_missing_param_equals_empty(wav, mk):
    c = cfg("__SHOPPING__/s", query_params={"q": ["x"], "cat": [""]})
    assert wav.status(c, [mk(SHOP + "/s?q=x")]) == "success"
    assert wav.status(c, [mk(SHOP + "/s?q=x&cat=")]) == "success"
    assert wav.status(c, [mk(SHOP + "/s?q=y")]) == "failure"


def test_encoded_reordered_and_case_folded_values(wav, mk):
    c = cfg("__SHOPPING__/s", query_params={"q": ["Red Shoes"], "n": ["2"]})
    assert wav.status(c, [mk(SHOP + "/s?n=2&q=red%20shoes")]) == "success"
    assert wav.status(c, [mk(SHOP + "/s?q=RED+SHOES+&n=2")]) == "success"


def test_query_params_compare_first_value(wav, mk):
    c = cfg("__SHOPPING__/s", query_params={"t": ["a"]})
    assert wav.status(c, [mk(SHOP + "/s?t=b&t=a")]) == "success"  # values sorted: a first
    assert wav.status(c, [mk(SHOP + "/s?t=b&t=c")]) == "failure"


def test_query_param_regex_value(wav, mk):
    c = cfg("__SHOPPING__/s", query_params={"state": ["^(opened|)$"]})
    assert wav.status(c, [mk(SHOP + "/s")]) == "success"
    assert wav.status(c, [mk(SHOP + "/s?state=opened")]) == "success"
    assert wav.status(c, [mk(SHOP + "/s?state=closed")]) == "failure"


def test_query_params_schema_dates(wav, mk):
    c = {**cfg("__SHOPPING__/r", query_params={"from": ["02/1/2023"]}),
         "query_params_schema": {"type": "object", "properties": {
             "from": {"type": "array", "items": {"type": "string", "format": "date"}}}}}
    assert wav.status(c, [mk(SHOP + "/r?from=2023-02-01")]) == "success"
    assert wav.status(c, [mk(SHOP + "/r?from=Feb%201,%202023")]) == "success"
    assert wav.status(c, [mk(SHOP + "/r?from=2023-02-02")]) == "failure"


def _b64(s: str) -> str:
    return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")


def test_decode_base64_query(wav, mk):
    c = {**cfg("__SHOPPING_ADMIN__/reports/filter",
               query_params={"from": ["02/1/2023"], "to": ["02/28/2023"]}),
         "decode_base64_query": True}
    encoded = _b64("from=02%2F1%2F2023&to=02%2F28%2F2023")
    assert wav.status(c, [mk(f"{ADMIN}/reports/filter/{encoded}/")]) == "success"
    # A plain query where base64 was expected passes too.
    assert wav.status(c, [mk(f"{ADMIN}/reports/filter?from=02/1/2023&to=02/28/2023")]) \
        == "success"
    without = {**c, "decode_base64_query": False}
    assert wav.status(without, [mk(f"{ADMIN}/reports/filter/{encoded}/")]) == "failure"


# §3a.8 and post_data keys.
def test_form_and_json_bodies_interchangeable(wav, mk):
    c = cfg("__SHOPPING__/save", http_method="POST", post_data={"name": "Alice", "qty": "2"})
    assert wav.status(c, [mk(SHOP + "/save", "POST", form={"name": "alice", "qty": "2"})]) \
        == "success"
    assert wav.status(c, [mk(SHOP + "/save", "POST", json_body={"name": "Alice", "qty": 2})]) \
        == "success"
    assert wav.status(c, [mk(SHOP + "/save", "POST", json_body={"name": "Bob", "qty": 2})]) \
        == "failure"


def test_empty_json_body_never_matches(wav, mk):
    c = cfg("__SHOPPING__/save", http_method="POST", post_data={"x": "^.*$"})
    assert wav.status(c, [mk(SHOP + "/save", "POST", json_body={})]) == "failure"
    assert wav.status(c, [mk(SHOP + "/save", "POST", json_body={"x": "1"})]) == "success"


def test_multipart_body(wav, mk):
    body = ('--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nHello\r\n'
            '--XyZ\r\nContent-Disposition: form-data; name="n"\r\n\r\n3\r\n--XyZ--\r\n')
    c = cfg("__SHOPPING__/up", http_method="POST", post_data={"title": "hello"})
    e = mk(SHOP + "/up", "POST", body=body, mime="multipart/form-data; boundary=XyZ")
    assert wav.status(c, [e]) == "success"


def test_post_data_real_urls_become_placeholders_except_markdown(wav, mk):
    c = cfg("__GITLAB__/notes", http_method="POST",
            post_data={"link": "__GITLAB__/a/b", "note": "see __GITLAB__/a/b"})
    c["post_data_schema"] = {"type": "object", "properties": {
        "note": {"type": "string", "format": "markdown"}}}
    real = GITLAB + "/a/b"
    e = mk(GITLAB + "/notes", "POST", form={"link": real, "note": "see " + real})
    assert wav.status(c, [e], sites=("gitlab",)) == "failure"
    e2 = mk(GITLAB + "/notes", "POST", form={"link": GITLAB + "/a/b", "note": "see __GITLAB__/a/b"})
    assert wav.status(c, [e2], sites=("gitlab",)) == "success"


def test_post_data_jsonpath_keys(wav, mk):
    c = cfg("__GITLAB__/notes", http_method="POST",
            post_data={"$.note.note": "LGTM", "$.note.noteable_type": "MergeRequest"})
    e = mk(GITLAB + "/notes", "POST", json_body={"note": {"note": "lgtm",
                                                          "noteable_type": "MergeRequest"}})
    assert wav.status(c, [e], sites=("gitlab",)) == "success"
    e2 = mk(GITLAB + "/notes", "POST", json_body={"note": {"note": "nope"}})
    assert wav.status(c, [e2], sites=("gitlab",)) == "failure"


def test_post_data_jsonpath_into_embedded_json_and_filters(wav, mk):
    matrix = ('[{"newProduct": 1, "attributes": "Size: S, Color: Red"}, '
              '{"newProduct": 0, "attributes": "x"}, {"newProduct": 1, "attributes": "Size: M"}]')
    c = cfg("__SHOPPING_ADMIN__/product/save", http_method="POST", post_data={
        "$['configurable-matrix-serialized'][?(@.newProduct == 1)].attributes":
            ["size: m", "size: s, color: red"]})
    c["post_data_schema"] = {"type": "object", "properties": {
        "$['configurable-matrix-serialized'][?(@.newProduct == 1)].attributes":
            {"type": "array", "items": {"type": "string"}}}}
    e = mk(ADMIN + "/product/save", "POST", form={"configurable-matrix-serialized": matrix})
    assert wav.status(c, [e]) == "success"  # an unordered multiset of the filtered values
    lone = matrix.replace('"newProduct": 1, "attributes": "Size: M"', '"newProduct": 0')
    e2 = mk(ADMIN + "/product/save", "POST", form={"configurable-matrix-serialized": lone})
    assert wav.status(c, [e2]) == "failure"


def test_post_data_regex_key(wav, mk):
    c = cfg("__SHOPPING__/c", http_method="POST",
            post_data={"$.^reply_to_submission_\\d+\\[comment\\]$": "good book!"})
    e = mk(SHOP + "/c", "POST", form={"reply_to_submission_2[comment]": "Good book!"})
    assert wav.status(c, [e]) == "success"


def test_post_data_schema_currency(wav, mk):
    c = cfg("__SHOPPING_ADMIN__/p/save", http_method="POST",
            post_data={"product[price]": "$1,234.5"})
    c["post_data_schema"] = {"type": "object", "properties": {
        "product[price]": {"type": "number", "format": "currency"}}}
    assert wav.status(c, [mk(ADMIN + "/p/save", "POST", form={"product[price]": "1234.50"})]) \
        == "success"
    assert wav.status(c, [mk(ADMIN + "/p/save", "POST", form={"product[price]": "1235"})]) \
        == "failure"


def test_ignored_post_data_params_patterns(wav, mk):
    c = {**cfg("__SHOPPING__/s", http_method="POST", post_data={"a": "1", "form_key": "zzz"}),
         "ignored_post_data_params_patterns": ["^form_key$"]}
    assert wav.status(c, [mk(SHOP + "/s", "POST", form={"a": "1", "form_key": "abc"})]) \
        == "success"


def test_extra_post_fields_are_ignored(wav, mk):
    c = cfg("__SHOPPING__/s", http_method="POST", post_data={"a": "1"})
    assert wav.status(c, [mk(SHOP + "/s", "POST", form={"a": "1", "b": "2"})]) == "success"


def test_should_not_exist(wav, mk):
    c = {**cfg("__SHOPPING__/del", http_method="DELETE"), "should_not_exist": True}
    assert wav.status(c, [mk(SHOP + "/p")]) == "success"
    assert wav.status(c, [mk(SHOP + "/del", "DELETE", 404)]) == "failure"


def test_headers_referer_filters_and_compares(wav, mk):
    c = cfg("__SHOPPING__/api/graphql", http_method="POST",
            headers={"referer": "__SHOPPING__/issues?state=opened"})
    ok = mk(SHOP + "/api/graphql", "POST", headers={"Referer": SHOP + "/issues?state=opened"})
    other_page = mk(SHOP + "/api/graphql", "POST", headers={"Referer": SHOP + "/home"})
    wrong_query = mk(SHOP + "/api/graphql", "POST",
                     headers={"Referer": SHOP + "/issues?state=closed"})
    assert wav.status(c, [ok]) == "success"
    # Another referer path is filtered out, so the earlier good event is the last match.
    assert wav.status(c, [ok, other_page]) == "success"
    assert wav.status(c, [ok, wrong_query]) == "failure"
    assert wav.status(c, [mk(SHOP + "/api/graphql", "POST")]) == "failure"  # no referer


def test_other_header(wav, mk):
    c = cfg("__SHOPPING__/p", headers={"X-Requested-With": "XMLHttpRequest"})
    assert wav.status(c, [mk(SHOP + "/p", headers={"x-requested-with": "xmlhttprequest"})]) \
        == "success"
    assert wav.status(c, [mk(SHOP + "/p")]) == "failure"


def test_response_content_and_jsonpath(wav, mk):
    c = cfg("__SHOPPING__/cart", response_content={"items_qty": 1, "$.items[0].name": "Lamp"})
    assert wav.status(c, [mk(SHOP + "/cart", content={"items_qty": 1,
                                                       "items": [{"name": "Lamp"}]})]) == "success"
    assert wav.status(c, [mk(SHOP + "/cart", content={"items_qty": 2,
                                                       "items": [{"name": "Lamp"}]})]) == "failure"
    assert wav.status(c, [mk(SHOP + "/cart", content="not json")]) == "failure"


def test_response_cookies_regex(wav, mk):
    c = cfg("__SHOPPING__/wish", response_cookies={
        "mage-messages": "^.*(?=.*laundry)(?=.*detergent).* has been added to your wish list.*$"})
    msg = "%5B%7B%22text%22%3A%22Laundry%20Detergent%20has%20been%20added%20to%20your%20" \
          "wish%20list.%22%7D%5D"
    assert wav.status(c, [mk(SHOP + "/wish", cookies={"mage-messages": msg})]) == "success"
    assert wav.status(c, [mk(SHOP + "/wish", cookies={"mage-messages": "x"})]) == "failure"


def test_no_events_is_missing(wav, mk):
    v = wav.network(cfg(), [mk(SHOP + "/other")])
    assert v.status.value == "failure"
    assert v.assertions[0].name == "missing_navigation_event"


# Known reference defects, reproduced on purpose (see docs/evaluating.md).
def test_defect_lowercase_method_in_trace_fails(wav, mk):
    c = cfg("__SHOPPING__/s", http_method="POST")
    assert wav.status(c, [mk(SHOP + "/s", "post")]) == "failure"


def test_defect_one_item_post_data_list_is_error(wav, mk):
    c = cfg("__SHOPPING__/s", http_method="POST", post_data={"ids": ["1"]})
    assert wav.status(c, [mk(SHOP + "/s", "POST", form={"ids": "1"})]) == "error"
    c["post_data_schema"] = {"type": "object", "properties": {
        "ids": {"type": "array", "items": {"type": "string"}}}}
    assert wav.status(c, [mk(SHOP + "/s", "POST", json_body={"ids": ["1"]})]) == "success"


def test_unknown_site_placeholder_is_error(wav, mk):
    assert wav.status(cfg("__WIKIPEDIA__/x"), [mk(SHOP + "/x")]) == "error"
