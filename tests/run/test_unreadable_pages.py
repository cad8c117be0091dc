"""Pages that cannot be read (issue 26, points 4 and 7): a 21,000-button page and a page
nesting 2,000 elements deep are over the tree's bounds, so their observations are marked
unreadable with the reason (the same answer on an idle or a loaded machine) and every
constraint judgement on them is unknown, never 0; a page with deeply nested JSON-LD loses
that block, says so, and the episode goes on."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from webtraj.execute.run import RunConfig, execute_run
from webtraj.model import Action, Constraint, Task
from webtraj.model.action import ElementTarget

BUTTONS = 21_000  # over the default bound of 20,000 elements (the page had 40,000)
# A block nested 100,000 deep (the stdlib parser raised RecursionError on it), one nested 100
# deep (parses, over the depth bound), and an ordinary one that is kept.
DEEP = "[" * 100_000 + "]" * 100_000
NESTED = '{"a": ' * 100 + "1" + "}" * 100
PLAIN = '{"@type": "Hotel", "name": "Hotel Lumen", "address": {"addressLocality": "Paris"}}'
START = ("<!doctype html><title>Hotel Lumen</title><h1>Hotel Lumen in Paris</h1>"
         f'<script type="application/ld+json">{DEEP}</script>'
         f'<script type="application/ld+json">{NESTED}</script>'
         f'<script type="application/ld+json">{PLAIN}</script>'
         "<a href=/rooms>All rooms</a>")
ROOMS = ("<!doctype html><title>Rooms</title><h1>Rooms in Paris</h1>"
         + "".join(f"<button>Room {i}</button>" for i in range(BUTTONS)))
NESTED_DOM = ("<!doctype html><title>Deep</title><h1>Deep in Paris</h1>"
              + "<div><span>Paris</span>" * 2_000 + "</div>" * 2_000)


class _Site(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        data = {"/rooms": ROOMS, "/deep": NESTED_DOM}.get(self.path, START).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_unreadable_page_is_marked_and_judged_unknown(tmp_path, site):
    task = Task(task_id="rooms", intent="Find rooms in Paris", start_url=site + "/",
                constraints=(Constraint(name="city", value="Paris", type="location"),),
                reference_actions=(
                    Action(kind="click", target=ElementTarget(role="link", name="All rooms")),
                    Action(kind="goto", value=site + "/deep"),
                    Action(kind="stop", value="")))
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_bytes(task.to_json_bytes(indent=False) + b"\n")
    config = RunConfig(tasks_file=str(tasks_file), agent="replay", timeout_s=900,
                       evaluators=({"evaluator": "constraints", "judge": "rule",
                                    "steps": "all"},))
    with execute_run(config, tmp_path / "run") as store:
        [traj] = list(store.iter_trajectories())
        [score] = store.scores(traj.trajectory_id, evaluator="constraints:rule")

    # The episode went on past both pages and stopped as planned.
    assert traj.termination == "stop" and len(traj.steps) == 3, traj.error
    first, rooms, deep, final = traj.observations
    # The start page: the JSON-LD it could read is kept, the rest is named with its reason.
    assert first.unreadable is None and "Hotel Lumen in Paris" in first.axtree
    assert first.structured_data == ({"@type": "Hotel", "name": "Hotel Lumen",
                                      "address": {"addressLocality": "Paris"}},)
    assert "JSON-LD left out" in first.last_action_error
    assert "block 0 nested deeper" in first.last_action_error
    assert "block 1 nested deeper" in first.last_action_error
    # The rooms page is over the bound: marked unreadable with why, not an empty page.
    assert rooms.axtree == ""
    assert f"the page has {BUTTONS + 5:,} elements" in rooms.unreadable, rooms
    assert "max_page_elements" in rooms.unreadable
    # The HTML parser stops nesting at 512 levels: the page is 513 deep, over the bound.
    for obs in (deep, final):
        assert obs.axtree == "" and "the page nests 513 elements deep" in obs.unreadable, obs

    # Judgements: o_0 is judged, the others are unknown with the reason, never 0.
    assert score.value is None and "could not be read" in score.reason
    assert score.details["sr"] is None
    assert score.step_values[0] == 1.0 and score.step_values[1:] == (None, None, None)
    for row in score.step_checks[1:]:
        [check] = row
        assert check.matching is None and "could not be read" in check.reason
    [final_check] = score.constraints
    assert final_check.matching is None
