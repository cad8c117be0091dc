"""WebArena-Verified as a suite, end to end against a stand-in deployment on 127.0.0.1
(`wav_standin`: six real tasks of the installed dataset over two sites): a scripted agent
doing each task right scores 1 and wrong 0 with the evaluator's reason; the run exports in the
leaderboard layout, `webtraj eval webarena-verified --logs` on the export gives the run's own
verdicts, and so does the reference package (`webarena-verified`) scoring the same folders."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path

import pytest

from wav_standin import (
    REDDIT_PASSWORD,
    REDDIT_USER,
    SPACE_POST,
    SPACE_TOKEN,
    TASK_IDS,
    StandIn,
)
from webtraj.agents.protocol import AgentDecision
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model.action_text import parse_action

# What each task needs done; the agent resolves `{role 'name'}` to the element's id.
NAV = '{"task_type": "NAVIGATE", "status": "SUCCESS", "retrieved_data": null}'
MUT = '{"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": null}'
RIGHT = {
    "27": ["goto [{reddit}/f/personalfinance]",
           'stop [```json\n{"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": '
           '[{"username": "Hammer94", "post_title": "56 year old mom has no retirement. Where '
           'do I even start on her behalf?", "count": 0}]}\n```]'],
    "399": [f"goto [{{reddit}}/user/{REDDIT_USER}/edit_biography]",
            "type [{textbox 'Biography'}] [I am a robot] [0]", "click [{button 'Save'}]",
            f"stop [{MUT}]"],
    "404": ["goto [{reddit}/f/books]", "click [{button 'Upvote'}]", f"stop [{MUT}]"],
    "44": ["click [{link 'To-Do List'}]", f"stop [{NAV}]"],
    "156": ["click [{link 'Merge requests'}]", f"stop [{NAV}]"],
    "132": ["click [{link 'a11yproject.com'}]", "click [{link 'Commits'}]", "stop [1]"],
    "595": [f"goto [{{reddit}}{SPACE_POST}]", "click [{button 'Subscribe'}]", f"stop [{MUT}]"],
    "527": ["goto [{gitlab}/umano/AndroidSlidingUpPanel]", "click [{button 'Star'}]",
            f"stop [{MUT}]"],
}
WRONG = {
    "27": ["stop [Hammer94]"],  # a bare string where a list of objects is expected
    "399": [f"goto [{{reddit}}/user/{REDDIT_USER}/edit_biography]",
            "type [{textbox 'Biography'}] [I am a human] [0]", "click [{button 'Save'}]",
            f"stop [{MUT}]"],
    "404": ["goto [{reddit}/f/books]", f"stop [{MUT}]"],  # never voted
    "44": ["click [{link 'Issues'}]", f"stop [{NAV}]"],
    "156": ["click [{link 'Merge requests'}]", "click [{link 'To-Do List'}]", f"stop [{NAV}]"],
    "132": ["stop [2]"],
    # the same URL, method and referer: only the response body ({"subscribed": false}) differs
    "595": [f"goto [{{reddit}}{SPACE_POST}]", "click [{button 'Unsubscribe'}]", f"stop [{MUT}]"],
    "527": ["goto [{gitlab}/umano/AndroidSlidingUpPanel]", f"stop [{MUT}]"],  # never starred
}
# Tasks that change different sites, each waiting at its first step until the other has
# started: they finish only if the run lets them overlap.
MEET = {"399": "527", "527": "399"}
MUTATING = {"399": "reddit", "404": "reddit", "595": "reddit", "527": "gitlab"}


class ScriptedAgent:
    name = "scripted"

    def __init__(self, script: dict[str, list[str]], urls: dict[str, str],
                 meet: dict[str, str] | None = None) -> None:
        self.script, self.urls, self.meet = script, urls, meet or {}
        self.started: set[str] = set()

    async def act(self, task, observation, history):  # type: ignore[no-untyped-def]
        if not history:
            self.started.add(task.task_id)
            other = self.meet.get(task.task_id)
            if other is not None:
                await _until(lambda: other in self.started, f"{other} beside {task.task_id}")
        steps = self.script[task.task_id]
        text = steps[sum(1 for s in history if s.action is not None)]
        for site, url in self.urls.items():
            text = text.replace("{" + site + "}", url)

        def element(m: re.Match[str]) -> str:
            role, name = m.group(1), m.group(2)
            found = re.search(rf"\[(\w+)\] \[{role}\] \[{re.escape(name)}", observation.axtree)
            assert found, (role, name, observation.axtree)
            return found.group(1)

        text = re.sub(r"\{(\w+) '([^']+)'\}", element, text)
        return AgentDecision(action=parse_action(text))


async def _until(condition, what: str, limit_s: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    """Wait for `condition` (a bound far above any load, not a timing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while not condition():
        assert loop.time() < deadline, f"never ran: {what}"
        await asyncio.sleep(0.05)


def _config(urls_file: Path, accounts: Path | None = None) -> RunConfig:
    return RunConfig(suite="webarena-verified", agent="scripted", task_ids=TASK_IDS,
                     site_urls_file=str(urls_file), screenshots=False,
                     accounts_file=str(accounts) if accounts else None)


def _verdicts(store) -> dict[str, tuple[float | None, list[str]]]:  # type: ignore[no-untyped-def]
    from webtraj.execute.suites import get_suite

    suite = get_suite("webarena-verified")
    out = {}
    for traj in store.iter_trajectories():
        scores = store.scores(traj.trajectory_id)
        assert traj.error is None, traj.error
        out[traj.task.task_id] = (suite.headline_value(traj.task, scores),
                                  [str(s.details) for s in scores if s.value == 0.0])
    return out


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    with StandIn() as standin:
        root = tmp_path_factory.mktemp("wav")
        urls = root / "urls.json"
        urls.write_text(json.dumps({"__REDDIT__": standin.urls["reddit"],
                                    "gitlab": standin.urls["gitlab"]}))
        accounts = root / "accounts.json"
        # the stand-in gitlab needs no login; reddit's login page is the default /login
        accounts.write_text(json.dumps({"reddit": {"username": REDDIT_USER,
                                                   "password": REDDIT_PASSWORD},
                                        "gitlab": None}))
        yield standin, urls, accounts


def _round_trip(deployment, tmp_path, task_ids):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    standin, urls_file, accounts = deployment
    verdicts, exported, reference = {}, {}, {}
    for label, script in (("right", RIGHT), ("wrong", WRONG)):
        out = tmp_path / label
        agent = ScriptedAgent(script, standin.urls,
                              MEET if {"399", "527"} <= set(task_ids) else None)
        resets = tmp_path / f"{label}-resets.log"
        config = _config(urls_file, accounts).model_copy(update={
            "task_ids": task_ids, "workers": 2,
            "reset_cmds": {site: f"echo {site} >> '{resets}'" for site in ("reddit", "gitlab")}})
        with execute_run(config, out, agent=agent) as store:
            verdicts[label] = _verdicts(store)
            assert len(store) == len(task_ids)
            trajs = {t.task.task_id: t for t in store.iter_trajectories()}
        # tasks that change a site run after the read-only ones, one at a time per site, each
        # after its site's reset command; tasks of different sites overlap
        mutating = {t: s for t, s in MUTATING.items() if t in task_ids}
        assert sorted(resets.read_text().splitlines()) == sorted(mutating.values())
        reads_done = max(trajs[t].finished_at for t in task_ids if t not in mutating)
        assert min(trajs[t].started_at for t in mutating) >= reads_done
        for site in set(mutating.values()):
            ordered = sorted((trajs[t] for t, s in mutating.items() if s == site),
                             key=lambda t: t.started_at)
            for first, second in zip(ordered, ordered[1:], strict=False):
                assert second.started_at >= first.finished_at, site
        if {"399", "527"} <= set(task_ids):
            for a, b in (("399", "527"), ("527", "399")):
                assert trajs[a].started_at < trajs[b].finished_at
        sub = tmp_path / f"{label}-submission"
        res = CliRunner().invoke(app, ["export", "webarena-verified", str(out), "--out",
                                       str(sub)])
        assert res.exit_code == 0, res.output
        for tid in task_ids:
            assert {p.name for p in (sub / tid).iterdir()} == {"agent_response.json",
                                                                "network.har"}
            har = (sub / tid / "network.har").read_text()
            assert REDDIT_PASSWORD not in har and "favicon.ico" not in har
            assert SPACE_TOKEN not in har
            # bodies are kept only of the responses the task's evaluators read
            bodies = {e["request"]["url"].removeprefix(standin.urls["reddit"]).removeprefix(
                standin.urls["gitlab"]) for e in json.loads(har)["log"]["entries"]
                if e["response"].get("content", {}).get("text")}
            assert bodies == {"595": {"/f/space/subscribe.json" if label == "right"
                                      else "/f/space/unsubscribe.json"},
                              "527": {"/umano/AndroidSlidingUpPanel/toggle_star.json"}
                              if label == "right" else set()}.get(tid, set()), (tid, bodies)
        lines = tmp_path / f"{label}.jsonl"
        res = CliRunner().invoke(app, ["eval", "webarena-verified", "--logs", str(sub),
                                       "--out", str(lines)])
        assert res.exit_code == 0, res.output
        exported[label] = {(r := json.loads(x))["task_id"]: r["score"]
                           for x in lines.read_text().splitlines()}
        reference[label] = _reference_scores(sub, standin.urls, task_ids)
        # an imported run of the submission exports the same way, with the same verdicts
        imported, again = tmp_path / f"{label}-imported", tmp_path / f"{label}-again"
        for args in (["import", "webarena-verified", "--logs", str(sub), "--site-urls",
                      str(sub / "site_urls.json"), "--out", str(imported)],
                     ["export", "webarena-verified", str(imported), "--out", str(again)],
                     ["eval", "webarena-verified", "--logs", str(again), "--out",
                      str(lines)]):
            res = CliRunner().invoke(app, args)
            assert res.exit_code == 0, (args, res.output)
        assert {(r := json.loads(x))["task_id"]: r["score"]
                for x in lines.read_text().splitlines()} == exported[label]
        for tid in task_ids:
            assert ((again / tid / "agent_response.json").read_bytes()
                    == (sub / tid / "agent_response.json").read_bytes())
    right, wrong = verdicts["right"], verdicts["wrong"]
    assert {t: v[0] for t, v in right.items()} == dict.fromkeys(task_ids, 1.0)
    assert {t: v[0] for t, v in wrong.items()} == dict.fromkeys(task_ids, 0.0)
    for label in ("right", "wrong"):  # the round trip keeps every verdict
        run_scores = {t: v[0] for t, v in verdicts[label].items()}
        assert exported[label] == run_scores, label
        assert reference[label] == run_scores, label
    return wrong


def _reference_scores(folder: Path, urls: dict[str, str], task_ids) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The reference package's verdicts on an exported submission folder."""
    from webarena_verified.api.webarena_verified import WebArenaVerified
    from webarena_verified.types.config import WebArenaVerifiedConfig

    config = WebArenaVerifiedConfig(environments={
        f"__{site.upper()}__": {"urls": [url]} for site, url in urls.items()})
    wa = WebArenaVerified(config=config)
    out = {}
    for tid in task_ids:
        result = wa.evaluate_task(task_id=int(tid),
                                  agent_response=folder / tid / "agent_response.json",
                                  network_trace=folder / tid / "network.har")
        out[tid] = float(result.score)
    return out


def test_round_trip_three_tasks_two_sites(deployment, tmp_path):
    """A retrieve (27), a mutate that POSTs after logging in (399), a navigate (44), and two
    mutates whose evaluators read response bodies (595 on reddit, 527 on gitlab): 399 and 595
    share reddit and never overlap, 527 on gitlab runs beside 399."""
    wrong = _round_trip(deployment, tmp_path, ("27", "399", "44", "595", "527"))
    reason = " ".join(wrong["595"][1]).lower()
    assert "subscribed" in reason, reason
    # the evaluator says why: the biography posted was another one
    reason = " ".join(wrong["399"][1]).lower()
    assert "i am a human" in reason and "i am a robot" in reason, reason


@pytest.mark.slow
def test_round_trip_six_tasks(deployment, tmp_path):
    wrong = _round_trip(deployment, tmp_path, TASK_IDS)
    # the vote was never sent: no POST to /sv/124260.json
    assert "no network event matches" in " ".join(wrong["404"][1])


def test_a_response_body_the_browser_never_had_leaves_the_check_unscored(deployment, tmp_path):
    """527 reads the star response's body; the stand-in sends only half of it and the agent
    goes on to another page: the check is unscored with the reason, not 0."""
    standin, urls_file, accounts = deployment
    release = threading.Event()
    standin.gitlab_cls.stall = release
    repo = "goto [{gitlab}/umano/AndroidSlidingUpPanel]"
    agent = ScriptedAgent({"527": [repo, "click [{button 'Star'}]", repo, f"stop [{MUT}]"]},
                          standin.urls)
    config = _config(urls_file, accounts).model_copy(update={"task_ids": ("527",)})
    try:
        with execute_run(config, tmp_path / "run", agent=agent) as store:
            [traj] = store.iter_trajectories()
            scores = store.scores(traj.trajectory_id)
    finally:
        release.set()
        standin.gitlab_cls.stall = None
    assert traj.error is None, traj.error
    [star] = [s for s in scores if "toggle_star" in s.evaluator]
    assert star.value is None, star
    assert "response body of " in (star.reason or "") and "toggle_star.json was not " \
        "recorded: the browser could not read it" in (star.reason or ""), star
    # The submission keeps the mark, so scoring it gives the same: unscored, with the reason.
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    sub, lines = tmp_path / "submission", tmp_path / "eval.jsonl"
    for args in (["export", "webarena-verified", str(tmp_path / "run"), "--out", str(sub)],
                 ["eval", "webarena-verified", "--logs", str(sub), "--out", str(lines)]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, (args, res.output)
    [line] = [json.loads(x) for x in lines.read_text().splitlines()]
    assert line["score"] is None, line
    assert "toggle_star.json was not recorded" in json.dumps(line), line


def test_stop_text_becomes_the_agent_response():
    from webtraj.suites.webarena_verified.logs import agent_response_obj

    assert agent_response_obj('{"performed_operation": "navigate", "status": "success"}') == {
        "task_type": "navigate", "status": "success"}
    fenced = 'Done.\n```json\n{"task_type": "MUTATE", "status": "SUCCESS"}\n```'
    assert agent_response_obj(fenced) == {"task_type": "MUTATE", "status": "SUCCESS"}
    assert agent_response_obj("42") == {"task_type": "RETRIEVE", "status": "SUCCESS",
                                        "retrieved_data": ["42"]}
    assert agent_response_obj("   ") is None


def test_suite_lists_the_installed_dataset_and_refuses_bad_site_files(tmp_path):
    from webtraj.execute.site_reset import reset_sites
    from webtraj.execute.suites import ListOptions, get_suite
    from webtraj.model import InputError
    from webtraj.suites.webarena_verified.suite import read_site_urls

    suite = get_suite("webarena-verified")
    assert len(suite.list_tasks(ListOptions())) == 812
    assert len(suite.list_tasks(ListOptions(suite_options={"subset": "hard"}))) == 258
    with pytest.raises(InputError, match="unknown subset"):
        suite.list_tasks(ListOptions(suite_options={"subset": "easy"}))
    bad = tmp_path / "urls.json"
    bad.write_text('{"gitlab": "ftp://host:8023"}')
    with pytest.raises(InputError, match="http"):
        read_site_urls(bad)
    assert reset_sites({"reddit": "exit 3"}, ["gitlab"]) is None
    failed = reset_sites({"reddit": "echo broken >&2; exit 3"}, ["reddit"])
    assert failed is not None and "exit 3" in failed and "broken" in failed
