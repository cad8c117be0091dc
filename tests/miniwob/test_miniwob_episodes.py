"""MiniWoB++ in real Chromium: hand-written action sequences (by role and accessible name,
derived from each page's own instruction, as a person would act) reach the page's reward 1;
wrong actions get a reward <= 0; an idle episode gets the page's own time-out result. The
reward is read by the `miniwob` evaluator from the episode's HAR only."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

import pytest

from webtraj.agents.replay import ReplayAgent
from webtraj.evaluate.registry import create
from webtraj.execute.episode import EpisodeSpec, run_episode
from webtraj.model.action import Action, ActionKind, ElementTarget
from webtraj.model.task import Task
from webtraj.model.trajectory import Termination
from webtraj.suites.miniwob.tasks import PAGE_TASK

pytestmark = pytest.mark.asyncio(loop_scope="module")


def click(role: str, name: str = "", nth: int = 0, exact: bool = True) -> Action:
    return Action(kind=ActionKind.CLICK, target=ElementTarget(role=role, name=name, nth=nth,
                                                              exact=exact))


def type_(role: str, name: str, text: str, nth: int = 0) -> Action:
    return Action(kind=ActionKind.TYPE, value=text, press_enter=False,
                  target=ElementTarget(role=role, name=name, nth=nth))


def press(key: str) -> Action:
    return Action(kind=ActionKind.PRESS, value=key)


def select(role: str, value: str) -> Action:
    return Action(kind=ActionKind.SELECT, value=value, target=ElementTarget(role=role, name=""))


def quoted(intent: str) -> list[str]:
    return re.findall(r'"([^"]*)"', intent)


SUBMIT = click("button", "Submit")


# One solver per task: the instruction in, the actions a person would take out.
def solve_click_button(intent):
    return [click("button", quoted(intent)[0])]


def solve_enter_text(intent):
    return [type_("textbox", "", quoted(intent)[0]), SUBMIT]


def solve_enter_password(intent):
    pw = quoted(intent)[0]
    return [type_("textbox", "", pw, nth=0), type_("textbox", "", pw, nth=1), SUBMIT]


def solve_login_user(intent):
    user, pw = quoted(intent)
    return [type_("textbox", "", user, nth=0), type_("textbox", "", pw, nth=1),
            click("button", "Login")]


def solve_choose_list(intent):
    item = re.match(r"Select (.+) from the list", intent).group(1)
    return [select("combobox", item), SUBMIT]


def solve_click_checkboxes(intent):
    names = re.match(r"Select (.*) and click Submit", intent).group(1)
    wanted = [] if names == "nothing" else [n.strip() for n in names.split(",")]
    return [click("checkbox", n) for n in wanted] + [SUBMIT]


def solve_click_option(intent):
    return [click("radio", re.match(r"Select (.+) and click Submit", intent).group(1)), SUBMIT]


def solve_click_tab(intent):
    return [click("link", re.search(r"(Tab #\d+)", intent).group(1))]


def solve_enter_date(intent):
    month, day, year = re.search(r"(\d\d)/(\d\d)/(\d{4})", intent).groups()
    return [type_("textbox", "", f"{year}-{month}-{day}"), SUBMIT]


def solve_enter_time(intent):
    h, m, ampm = re.search(r"(\d+):(\d\d) (AM|PM)", intent).groups()
    hour = int(h) % 12 + (12 if ampm == "PM" else 0)
    return [type_("textbox", "", f"{hour:02d}:{m}"), SUBMIT]


def solve_choose_date(intent):
    """Open the date picker, page back month by month to the date's month, click the day."""
    month, day, _year = re.search(r"(\d\d)/(\d\d)/(\d{4})", intent).groups()
    # The picker opens on December (2016): go back to the month asked for.
    return ([click("textbox")] + [click("link", "Prev")] * (12 - int(month))
            + [click("link", str(int(day))), SUBMIT])


def solve_scroll_text_2(intent):
    key = "Control+End" if "bottom" in intent else "Control+Home"
    return [click("textbox"), press(key), SUBMIT]


def solve_click_dialog(intent):
    return [click("button", "Close")]


def solve_click_collapsible(intent):
    return [click("tab", "Section #", exact=False), SUBMIT]


def solve_focus_text(intent):
    return [click("textbox")]


SOLVERS = {
    "click-button": solve_click_button,          # click
    "click-dialog": solve_click_dialog,          # click
    "enter-text": solve_enter_text,              # type
    "enter-password": solve_enter_password,      # type
    "login-user": solve_login_user,              # type
    "focus-text": solve_focus_text,              # focus
    "choose-list": solve_choose_list,            # select
    "click-checkboxes": solve_click_checkboxes,  # checkbox
    "click-option": solve_click_option,          # radio
    "enter-date": solve_enter_date,              # date
    "choose-date-easy": solve_choose_date,       # date (picker)
    "enter-time": solve_enter_time,              # time
    "click-tab": solve_click_tab,                # tab
    "click-collapsible": solve_click_collapsible,  # expand a section
    "scroll-text-2": solve_scroll_text_2,        # scroll
}


def _build(server, names, seeds, cache=True):
    from webtraj.suites.miniwob.tasks import build_tasks

    built, failed = build_tasks(server.base_url, names, seeds=seeds, cache=cache)
    assert failed == []
    return {(t.metadata["miniwob_task"], t.metadata["seed"]): t for t in built}


@pytest.fixture(scope="module")
def tasks(miniwob_server):
    return _build(miniwob_server, [*SOLVERS, "use-colorwheel"], [0, 1])


@pytest.fixture(scope="module")
def more_seeds(miniwob_server):
    return _build(miniwob_server, list(SOLVERS), [2, 3])


async def run(browser, tmp_path, task: Task, actions, agent=None):
    task = task.model_copy(update={"reference_actions": tuple(actions)})
    workdir = tmp_path / task.task_id.replace("/", "_")
    spec = EpisodeSpec(task=task, agent="replay", screenshots=False, max_steps=30,
                       timeout_s=60, page_task=PAGE_TASK)
    traj = await run_episode(browser, agent or ReplayAgent(), spec, workdir)
    [score] = await create({"evaluator": "miniwob"}).evaluate(traj, workdir)
    return traj, score


@pytest.mark.parametrize("name", list(SOLVERS))
async def test_hand_written_actions_reach_reward_one(browser, tmp_path, tasks, name):
    await _solved(browser, tmp_path, tasks[(name, 0)])


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("name", list(SOLVERS))
async def test_more_seeds_reach_reward_one(browser, tmp_path, more_seeds, name, seed):
    await _solved(browser, tmp_path, more_seeds[(name, seed)])


async def _solved(browser, tmp_path, task):
    name = task.metadata["miniwob_task"]
    traj, score = await run(browser, tmp_path, task, SOLVERS[name](task.intent))
    errors = [s.error for s in traj.steps if s.error]
    assert errors == [], errors
    assert score.details["raw_reward"] == 1, (task.intent, score)
    assert score.value == 1.0 and score.details["done"] is True
    # Per step: 0 until the reward arrived, then 1; the last observation is a success.
    assert score.step_values[0] == 0.0 and score.step_values[-1] == 1.0
    assert len(score.step_values) == len(traj.observations)
    # The episode ended when the page gave its reward: no stop step after it (issue 42).
    assert traj.termination is Termination.PAGE_ENDED
    assert all(s.action.kind is not ActionKind.STOP for s in traj.steps)


async def test_the_seed_decides_the_problem(tasks, miniwob_server):
    assert tasks[("enter-text", 0)].intent != tasks[("enter-text", 1)].intent
    # ... and the same seed gives the same problem again.
    again = await asyncio.to_thread(_build, miniwob_server, ["enter-text"], [1], cache=False)
    assert again[("enter-text", 1)].intent == tasks[("enter-text", 1)].intent


async def test_the_agent_never_sees_the_reward(browser, tmp_path, tasks):
    task = tasks[("click-button", 0)]
    traj, score = await run(browser, tmp_path, task, solve_click_button(task.intent))
    assert score.value == 1.0
    for obs in traj.observations:
        assert "reward" not in obs.axtree.lower()
        assert "raw_reward" not in obs.url


@pytest.mark.parametrize(("name", "wrong"), [
    ("click-button", lambda intent: [click("button", "Previous" if "next" in intent.lower()
                                           else "next", exact=False)]),
    ("enter-text", lambda intent: [type_("textbox", "", quoted(intent)[0] + "x"), SUBMIT]),
    ("click-checkboxes", lambda intent: [SUBMIT] if "nothing" not in intent
     else [click("checkbox", "", exact=False), SUBMIT]),
    ("enter-date", lambda intent: [type_("textbox", "", "1999-01-01"), SUBMIT]),
])
async def test_wrong_actions_get_reward_at_most_zero(browser, tmp_path, tasks, name, wrong):
    task = tasks[(name, 0)]
    traj, score = await run(browser, tmp_path, task, wrong(task.intent))
    if score.details["done"]:
        assert score.details["raw_reward"] <= 0
    assert score.value == 0.0


async def test_idle_episode_gets_the_pages_own_timeout(browser, tmp_path, tasks):
    """An agent that waits past the page's time limit: the page ends the episode itself
    (reward -1, reason 'timed out'), and the score is a failure, not an error."""
    task = tasks[("use-colorwheel", 0)]
    limit_s = task.metadata["time_limit_ms"] / 1000

    class Waiter:
        name = "waiter"

        async def act(self, task, observation, history):
            from webtraj.agents import AgentDecision

            if not history:
                await asyncio.sleep(limit_s + 1.0)
                return AgentDecision(action=Action(kind=ActionKind.SCROLL, value="down"))
            return AgentDecision(action=Action(kind=ActionKind.STOP, value=""))

    traj, score = await run(browser, tmp_path, task, [], agent=Waiter())
    assert score.details["done"] is True
    assert score.details["raw_reward"] == -1
    assert score.details["reason"] == "timed out"
    # The page ended the episode at its time-out: no stop step after the scroll.
    assert traj.termination is Termination.PAGE_ENDED and len(traj.steps) == 1
    assert score.value == 0.0 and score.step_values == (0.0, 0.0)


async def test_a_run_without_a_trace_is_unscored(tasks):
    from webtraj.model import Trajectory

    traj = Trajectory(trajectory_id="x", task=tasks[("click-button", 0)], agent="a",
                      error="worker died", finished_at=dt.datetime.now().timestamp())
    [score] = await create({"evaluator": "miniwob"}).evaluate(traj, None)
    assert score.value is None and "no network trace" in score.reason


async def test_the_episode_reads_the_instruction_in_its_own_page_load(browser, tmp_path, tasks,
                                                                      miniwob_server):
    """A task without an intent (as `webtraj run` makes them): the episode's page states it,
    and it is the instruction the page showed when read ahead (issue 42)."""
    from webtraj.suites.miniwob.tasks import page_stated_tasks

    [bare] = page_stated_tasks(miniwob_server.base_url, ["enter-text"], [1])
    assert bare.intent == "" and "time_limit_ms" not in bare.metadata

    class FromTheStatedTask:
        name = "stated"

        async def act(self, task, observation, history):
            from webtraj.agents import AgentDecision

            seen.append(task.intent)
            return AgentDecision(action=solve_enter_text(task.intent)[len(history)])

    seen: list[str] = []
    traj, score = await run(browser, tmp_path, bare, [], agent=FromTheStatedTask())
    expected = tasks[("enter-text", 1)]
    assert seen == [expected.intent] * 2 and traj.task.intent == expected.intent
    assert traj.task.metadata["time_limit_ms"] == expected.metadata["time_limit_ms"]
    assert score.value == 1.0 and traj.termination is Termination.PAGE_ENDED


async def test_instructions_read_ahead_are_cached(tmp_path, monkeypatch, miniwob_server):
    """A task list read ahead keeps what each page showed per (task, seed, miniwob version):
    the next list opens no page."""
    from webtraj.suites.miniwob import tasks as miniwob_tasks

    monkeypatch.setenv(miniwob_tasks.ENV_CACHE, str(tmp_path / "cache"))
    first, _ = await asyncio.to_thread(miniwob_tasks.build_tasks, miniwob_server.base_url,
                                       ["click-button"], [4, 5])
    [cached] = (tmp_path / "cache").glob("instructions-*.json")
    assert miniwob_tasks.package_version() in cached.name

    def no_page(*_a, **_k):
        raise AssertionError("every instruction is in the cache")

    monkeypatch.setattr(miniwob_tasks, "probe_pages", no_page)
    again, failed = await asyncio.to_thread(miniwob_tasks.build_tasks,
                                            miniwob_server.base_url, ["click-button"], [5, 4])
    assert failed == [] and {t.task_id: t.intent for t in again} == \
        {t.task_id: t.intent for t in first}
    assert all(t.intent for t in first)
