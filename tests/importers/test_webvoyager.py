import pytest

from webtraj.formats.imported import ImportLog
from webtraj.formats.webvoyager import (
    GOOGLE,
    iter_results,
    load_task_folder,
    load_tasks_jsonl,
    parse_action,
    split_reply,
    task_folders,
)
from webtraj.model import InputError


def _texts(traj):
    return [s.action.to_text() if s.action else None for s in traj.steps]


@pytest.mark.parametrize("text, expected", [
    ("Click [33]", "click [33]"),
    ("Click 7", "click [7]"),
    ("Type [2]; green Xbox controller", "type [2] [green Xbox controller]"),
    ("Type [0]; [North Station]", "type [0] [North Station]"),
    ("Scroll [WINDOW]; down", "scroll [down]"),
    ("Scroll [12]; up", "scroll [up]"),
    ("GoBack", "go_back"),
    ("Google", f"goto [{GOOGLE}]"),
    ("ANSWER; 42 apples", "stop [42 apples]"),
    ("ANSWER; [The answer]", "stop [The answer]"),
    ("I will Click [5] now", "click [5]"),
])
def test_parse_action(text, expected):
    assert parse_action(text).to_text() == expected


@pytest.mark.parametrize("text, message", [
    ("Wait", "unsupported WebVoyager action 'Wait'"),
    ("Hover [3]", "unsupported WebVoyager action 'Hover'"),
    ("", "empty action"),
])
def test_unsupported_actions(text, message):
    with pytest.raises(ValueError, match=message):
        parse_action(text)


def test_split_reply():
    assert split_reply("Thought: look\n\nAction: Click [1]") == ("look", "Click [1]")
    assert split_reply("I will click.") == ("I will click.", None)


def test_folder_with_failures_and_every_action(wv_results, png):
    item = load_task_folder(wv_results / "taskAmazon--3")
    t = item.trajectory
    assert t.trajectory_id == "Amazon--3__webvoyager__t0" and t.agent == "webvoyager"
    assert t.task.task_id == "Amazon--3" and t.task.site == "Amazon"
    assert t.task.intent == "Find a green Xbox controller rated above 4 stars."
    assert t.task.start_url == "https://www.amazon.com/"
    assert _texts(t) == ["type [2] [green Xbox controller]", None, "click [33]",
                         "scroll [down]", "scroll [up]", None, "go_back",
                         f"goto [{GOOGLE}]",
                         "stop [The Xbox Core Controller – Velocity Green, 4.7 stars]"]
    assert t.answer == "The Xbox Core Controller – Velocity Green, 4.7 stars"
    s = t.steps
    # A reply without Thought/Action is a step without action; WebVoyager's reply is kept.
    assert s[1].error.startswith("format error") and "Format ERROR" in s[1].error
    # A failed action keeps its action and gets WebVoyager's feedback as error.
    assert s[2].action is not None and s[2].error.startswith("The action you have chosen")
    assert s[5].error.startswith("unsupported WebVoyager action 'Wait'")
    # No screenshot after feedback: the next replies see the same observation.
    assert s[1].observation == s[2].observation == s[3].observation
    assert s[1].observation.screenshot == "step-001.png"
    assert [x.observation.screenshot for x in s] == [
        "step-000.png", "step-001.png", "step-001.png", "step-001.png", "step-004.png",
        "step-005.png", "step-006.png", "step-007.png", "step-008.png"]
    assert sorted(item.artifacts) == ["step-000.png", "step-001.png", "step-004.png",
                                      "step-005.png", "step-006.png", "step-007.png",
                                      "step-008.png"]
    assert item.artifacts["step-004.png"] == png(3)
    # URLs: the start URL, unknown after a click or typing, Google's after Google.
    assert s[0].observation.url == "https://www.amazon.com/"
    assert s[4].observation.url == "" and s[8].observation.url == GOOGLE
    assert s[4].observation.axtree == '[0]: "Amazon";\t[12]: <select> "Sort by";'
    assert s[0].reasoning == "Type the query into the search box [2]."
    assert s[0].raw_output.startswith("Thought: Type the query")
    assert t.final_observation is None


def test_final_observation_without_reply_and_tasks_file(wv_results, wv_tasks, png):
    log = ImportLog()
    tasks = load_tasks_jsonl(wv_tasks, log)
    assert [(e.record, str(e.file)) for e in log.errors] == [("line 3", str(wv_tasks))]
    item = load_task_folder(wv_results / "taskGoogle Map--1", task_info=tasks["Google Map--1"])
    t = item.trajectory
    assert t.task.intent == "Plan a trip from Boston Logan Airport to North Station."
    assert t.task.site == "Google Map" and t.task.start_url == "https://www.google.com/maps/"
    assert _texts(t) == ["type [0] [North Station]"]
    assert t.steps[0].observation.axtree == '[0]: <input> "Search Google Maps";'
    assert t.final_observation.screenshot == "final.png"
    assert item.artifacts["final.png"] == png(22)
    assert t.answer is None


def test_iter_results_skips_a_corrupt_folder(wv_results):
    log = ImportLog()
    ids = [i.trajectory.task.task_id for i in iter_results(wv_results.parent, log=log)]
    assert ids == ["Amazon--3", "Google Map--1"]
    assert len(log.errors) == 1
    assert log.errors[0].file.endswith("taskBBC News--2/interact_messages.json")
    assert "invalid JSON" in log.errors[0].message


def test_bad_inputs(tmp_path):
    with pytest.raises(InputError, match="not a folder"):
        task_folders(tmp_path / "missing")
    folder = tmp_path / "taskX--1"
    folder.mkdir()
    (folder / "interact_messages.json").write_text('{"role": "user"}')
    with pytest.raises(InputError, match="list of chat messages"):
        load_task_folder(folder)
    (folder / "interact_messages.json").write_text('[{"role": "assistant", "content": "x"}]')
    with pytest.raises(InputError, match="before any observation") as err:
        load_task_folder(folder)
    assert err.value.record == "message 0"
    assert task_folders(folder) == [folder]
