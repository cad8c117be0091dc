from pathlib import Path

import orjson
import pytest

from webtraj.formats.browser_use import ACTIONS, Unmapped, default_task_id, load_history, map_action
from webtraj.formats.imported import ImportLog
from webtraj.model import ActionKind, InputError


def _texts(traj):
    return [s.action.to_text() if s.action else None for s in traj.steps]


def test_old_release_every_action_kind(bu_old):
    log = ImportLog()
    item = load_history(bu_old, log=log, task="Find the cheapest red shoes")
    t = item.trajectory
    assert not log.errors and not log.warnings
    assert t.trajectory_id == "shoes__browser-use__t0" and t.agent == "browser-use"
    assert t.task.intent == "Find the cheapest red shoes"
    assert t.task.start_url is None  # the first page was about:blank
    assert _texts(t) == [
        "goto [https://shop.example.com/]",
        "type [4] [red shoes] [0]", "press [Enter]", "click [9]",
        "scroll [down]", "scroll [up]",
        "select [12] [Price: low to high]", None,
        "goto [https://reviews.example.com/]", "tab_focus [0]", "close_tab",
        "goto [https://www.google.com/search?q=red+shoes+reviews]", "go_back",
        None,
        "stop [Cheapest: $19.99]",
    ]
    assert [s.index for s in t.steps] == list(range(15))
    assert t.answer == "Cheapest: $19.99" and t.metadata["success"] is True
    assert t.termination == "imported" and t.stopped
    assert (t.started_at, t.finished_at) == (1700000010.0, 1700000074.5)


def test_old_release_unsupported_and_failed_steps_keep_their_place(bu_old):
    t = load_history(bu_old).trajectory
    extract = t.steps[7]
    assert extract.action is None
    assert "unsupported browser-use action 'extract_content'" in extract.error
    assert "Extraction failed: timeout" in extract.error
    no_output = t.steps[13]
    assert no_output.action is None and no_output.error == "Rate limit error"


def test_multi_action_steps_share_observation_screenshot_and_reasoning(bu_old, png):
    item = load_history(bu_old)
    t = item.trajectory
    typed, keys, click = t.steps[1:4]
    assert typed.observation == keys.observation == click.observation
    assert typed.observation.url == "https://shop.example.com/"
    assert typed.observation.screenshot == "step-001.png"
    assert typed.reasoning == keys.reasoning == "Next goal: Search for red shoes"
    assert typed.started_at == keys.started_at == 1700000020.0
    assert typed.duration_s == 4.5 and keys.duration_s is None
    assert typed.observation.tabs[0].url == "https://shop.example.com/"
    # base64 screenshots are decoded; steps without one have none.
    assert item.artifacts == {"step-000.png": png(1), "step-001.png": png(2),
                              "step-014.png": png(7)}
    assert t.steps[4].observation.screenshot is None
    assert t.steps[14].observation.screenshot == "step-014.png"


def test_new_release_fields_and_action_names(bu_new, png):
    log = ImportLog()
    item = load_history(bu_new, log=log)
    t = item.trajectory
    assert t.task.task_id == "run42"  # history.json is named after its folder
    assert t.task.intent == "Find a hotel in Paris under $200"  # from <user_request>
    assert _texts(t) == [
        "goto [https://a.example/]", "goto [https://www.bing.com/search?q=hotel+paris]",
        "click [5]", None, "type [7] [Paris] [0]", "scroll [up]", "tab_focus [1]",
        "close_tab", "select [3] [2 adults]", None,
        'stop [{"hotel":"Le Petit","price":180}]',
    ]
    assert "coordinates (100, 220)" in t.steps[3].error
    assert t.steps[9].error == "unsupported browser-use action 'wait'"
    assert t.steps[0].reasoning == "I should open site A first.\nNext goal: Go"
    assert t.answer == '{"hotel":"Le Petit","price":180}'
    # Absolute path from another machine: found by name in screenshots/ next to the file.
    shots = {k: v if isinstance(v, bytes) else Path(v).read_bytes()
             for k, v in item.artifacts.items()}
    assert shots == {"step-000.png": png(11), "step-002.png": png(12)}
    assert t.steps[1].observation.screenshot == "step-000.png"
    assert [str(w) for w in log.warnings] == [
        f"{bu_new}: record history[2]: field 'state.screenshot_path': screenshot "
        "'/gone/step_3.png' not found; left out"]


def test_corrupt_entries_are_logged_and_skipped(bu_corrupt):
    log = ImportLog()
    t = load_history(bu_corrupt, log=log).trajectory
    assert _texts(t) == ["goto [https://x.example/a]"]
    assert [(e.record, e.field) for e in log.errors] == [
        ("history[1]", None), ("history[2]", "state"), ("history[3]", "model_output.action")]
    assert all(e.file == str(bu_corrupt) for e in log.errors)
    assert [(w.record, w.field) for w in log.warnings] == [("history[0]", "state.screenshot")]
    assert len(t.metadata["skipped_records"]) == 3


@pytest.mark.parametrize("content, field", [
    (b"{not json", None), (b'{"steps": []}', "history"), (b'"text"', "history")])
def test_unreadable_file_raises_input_error(tmp_path, content, field):
    path = tmp_path / "h.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        load_history(path)
    assert err.value.file == str(path) and err.value.field == field


def test_bare_list_and_missing_file(tmp_path):
    path = tmp_path / "bare.json"
    path.write_bytes(b'[{"model_output": {"action": [{"go_back": null}]}, "result": [], '
                     b'"state": {"url": "https://e.x/", "title": "", "tabs": []}}]')
    assert _texts(load_history(path).trajectory) == ["go_back"]
    with pytest.raises(InputError, match="cannot read"):
        load_history(tmp_path / "missing.json")


@pytest.mark.parametrize("name, params, text", [
    ("go_to_url", {"url": "https://a.b/"}, "goto [https://a.b/]"),
    ("navigate", {"url": "https://a.b/", "new_tab": True}, "goto [https://a.b/]"),
    ("open_tab", {"url": "https://a.b/"}, "goto [https://a.b/]"),
    ("search_google", {"query": "a b"}, "goto [https://www.google.com/search?q=a+b]"),
    ("search", {"query": "a"}, "goto [https://duckduckgo.com/?q=a]"),
    ("go_back", {}, "go_back"),
    ("click_element", {"index": 1}, "click [1]"),
    ("click_element_by_index", {"index": 2}, "click [2]"),
    ("click", {"index": 3}, "click [3]"),
    ("input_text", {"index": 4, "text": "x"}, "type [4] [x] [0]"),
    ("input", {"index": 0, "text": "y", "clear": False}, "type [0] [y] [0]"),
    ("send_keys", {"keys": "Control+a"}, "press [Control+a]"),
    ("scroll_down", {}, "scroll [down]"),
    ("scroll_up", {"amount": 300}, "scroll [up]"),
    ("scroll", {"down": True, "num_pages": 1.0}, "scroll [down]"),
    ("switch_tab", {"page_id": 2}, "tab_focus [2]"),
    ("switch", {"url": "b.example"}, "tab_focus [1]"),
    ("close_tab", {"page_id": 1}, "close_tab"),
    ("close", {"tab_id": "77AB"}, "close_tab"),
    ("select_dropdown_option", {"index": 5, "text": "Two"}, "select [5] [Two]"),
    ("select_dropdown", {"index": 5, "text": "Two"}, "select [5] [Two]"),
    ("done", {"text": "ok", "success": False}, "stop [ok]"),
])
def test_map_action(name, params, text):
    tabs = [{"url": "https://a.example/"}, {"url": "https://b.example/"}]
    assert map_action(name, params, tabs).to_text() == text


def test_every_known_name_is_tested():
    assert set(ACTIONS) == {p[0] for p in test_map_action.pytestmark[0].args[1]}


@pytest.mark.parametrize("name, params, message", [
    ("extract_content", {}, "unsupported browser-use action 'extract_content'"),
    ("click", {}, "no element index"),
    ("input_text", {"index": 1}, "no text"),
    ("go_to_url", {"url": " "}, "no url"),
    ("send_keys", {"keys": ""}, "empty keys"),
    ("switch", {"tab_id": "ZZZZ"}, "not among"),
    ("switch_tab", {}, "names no tab"),
    ("search", {"query": "q", "engine": "yahoo"}, "unknown search engine"),
])
def test_unmapped_actions_say_why(name, params, message):
    with pytest.raises(Unmapped, match=message):
        map_action(name, params, [])


def test_done_kind_and_task_id_defaults(tmp_path):
    assert map_action("done", {}).kind is ActionKind.STOP
    assert default_task_id(tmp_path / "flights" / "agent_history.json") == "flights"
    assert default_task_id(tmp_path / "flights" / "task-7.json") == "task-7"


def test_earliest_release_single_action_and_result(tmp_path):
    """Before 0.1.17 an entry held one action model (every action, unset ones null) and one
    result object."""
    path = tmp_path / "early.json"
    path.write_bytes(orjson.dumps({"history": [{
        "model_output": {"current_state": {"evaluation_previous_goal": "", "memory": "",
                                           "next_goal": "Search"},
                         "action": {"search_google": {"query": "weather"}, "go_to_url": None,
                                    "click_element": None, "done": None}},
        "result": {"is_done": False, "extracted_content": "Searched"},
        "state": {"url": "https://www.google.com/", "title": "Google", "tabs": []}}]}))
    t = load_history(path).trajectory
    assert _texts(t) == ["goto [https://www.google.com/search?q=weather]"]
    assert t.steps[0].error is None
