"""The leak corpus through every importer: browser-use histories, WebVoyager results,
WebArena-Verified agent logs (their HAR and agent response) and Mind2Web task files. No leak
reaches the imported run; look-alikes are stored as they were."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from typer.testing import CliRunner

from redaction_corpus import as_text, har_of, leaks, lookalikes, original, scan
from webtraj.cli.app import app

runner = CliRunner()
PORT = 8123
LEAKS, LOOKALIKES = leaks(PORT), lookalikes(PORT)
EVERY = LEAKS + LOOKALIKES
URLS = [e["url"] for e in EVERY if e["where"] == "url"]
TEXTS = [as_text(e) for e in EVERY if e["where"] != "url"]


def _import(*args: str) -> dict:
    result = runner.invoke(app, ["import", *args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _check(run: Path, kinds: tuple[str, ...] = ("url", "text", "body", "header")) -> None:
    assert scan(run, [e["secret"] for e in LEAKS]) == {}
    stored = b"".join(p.read_bytes() for p in run.rglob("*") if p.suffix in (".json", ".har"))
    missing = [e["id"] for e in LOOKALIKES if e["where"] in kinds
               and not any(form in stored for form in _stored_forms(e))]
    assert missing == []


def _stored_forms(e: dict) -> list[bytes]:
    """The entry as a JSON file holds it: escaped once, or twice inside a logged JSON text."""
    forms = []
    for text in (as_text(e), original(e)):
        once = json.dumps(text)[1:-1]
        forms += [once.encode(), json.dumps(once)[1:-1].encode()]
    return forms


def test_browser_use_import_redacts_the_corpus(tmp_path):
    history = []
    steps = max(len(URLS), len(TEXTS))
    for n, (url, text) in enumerate(zip((URLS * 2)[:steps], (TEXTS * 2)[:steps],
                                        strict=True), 1):
        history.append({
            "model_output": {"evaluation_previous_goal": "", "memory": "", "next_goal": text,
                             "thinking": text,
                             "action": [{"navigate": {"url": url, "new_tab": False}}]},
            "result": [{"is_done": False, "extracted_content": text}],
            "state": {"tabs": [{"url": url, "title": "T", "target_id": "9F3C"}],
                      "screenshot_path": None, "interacted_element": [None], "url": url,
                      "title": "T"},
            "metadata": {"step_start_time": float(n), "step_end_time": n + 0.5,
                         "step_number": n}})
    path = tmp_path / "bu" / "history.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps({"history": history}))
    run = tmp_path / "run"
    assert _import("browser-use", str(path), "--task", "sign in", "--out", str(run))[
        "imported"] == 1
    _check(run, kinds=("url", "text", "body", "header"))


def test_webvoyager_import_redacts_the_corpus(tmp_path):
    folder = tmp_path / "wv" / "20240101" / "taskShop--1"
    folder.mkdir(parents=True)
    msgs = [{"role": "system", "content": "You browse the web."},
            {"role": "user", "content": "Now given a task: sign in.  Please interact with "
             f"http://127.0.0.1:{PORT}/ and get the answer. Observation: A screenshot."}]
    for text in TEXTS + URLS:
        msgs.append({"role": "assistant",
                     "content": f"Thought: {text}\n\nAction: Scroll [WINDOW]; down"})
        msgs.append({"role": "user", "content": "Observation: (Omitted in context.)"})
    msgs.append({"role": "assistant", "content": "Thought: done\n\nAction: ANSWER; "
                 + " ".join(URLS)})
    (folder / "interact_messages.json").write_bytes(orjson.dumps(msgs))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(orjson.dumps({"web_name": "Shop", "id": "Shop--1", "ques": "sign in",
                                    "web": f"http://127.0.0.1:{PORT}/"}) + b"\n")
    run = tmp_path / "run"
    assert _import("webvoyager", str(tmp_path / "wv" / "20240101"), "--tasks", str(tasks),
                   "--out", str(run))["imported"] == 1
    _check(run)


def test_webarena_verified_logs_and_har_import_redacts_the_corpus(tmp_path):
    dataset = tmp_path / "tasks.json"
    dataset.write_bytes(orjson.dumps([{
        "task_id": 1, "intent": "What is the top product?", "sites": ["shopping_admin"],
        "start_urls": ["__SHOPPING_ADMIN__/admin"], "revision": 2,
        "eval": [{"evaluator": "AgentResponseEvaluator", "results_schema": {},
                  "expected": {"task_type": "retrieve", "status": "SUCCESS",
                               "retrieved_data": ["Sprite"]}}]}]))
    logs = tmp_path / "logs" / "1"
    logs.mkdir(parents=True)
    (logs / "agent_response.json").write_bytes(orjson.dumps({
        "task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": TEXTS + URLS}))
    (logs / "network.har").write_bytes(orjson.dumps(har_of(EVERY, f"http://127.0.0.1:{PORT}")))
    run = tmp_path / "run"
    assert _import("webarena-verified", "--dataset", str(dataset), "--logs",
                   str(tmp_path / "logs"), "--out", str(run))["imported"] == 1
    _check(run)
    har = orjson.loads((run / "trajectories" / "1__imported__t0" / "network.har").read_bytes())
    assert len(har["log"]["entries"]) == len(EVERY)


def test_mind2web_import_redacts_the_corpus(tmp_path):
    def action(uid: str, value: str) -> dict:
        cand = {"tag": "input", "attributes": orjson.dumps({"backend_node_id": uid}).decode(),
                "backend_node_id": uid, "is_original_target": True,
                "is_top_level_target": True}
        return {"action_uid": uid, "raw_html": "<html></html>",
                "cleaned_html": f'<html><body><input backend_node_id="{uid}" value="x">'
                                f"<a href=\"{URLS[0]}\">next</a></body></html>",
                "operation": {"op": "TYPE", "original_op": "TYPE", "value": value},
                "pos_candidates": [cand], "neg_candidates": []}

    values = TEXTS + URLS
    task = {"annotation_id": "leaky-1", "website": "shop", "domain": "Shopping",
            "subdomain": "General", "confirmed_task": "Sign in.",
            "action_reprs": [f"[textbox] Field -> TYPE: {v}" for v in values],
            "actions": [action(str(100 + i), v) for i, v in enumerate(values)]}
    path = tmp_path / "m2w" / "test_task" / "test_task_0.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(orjson.dumps([task]))
    run = tmp_path / "run"
    assert _import("mind2web", str(path.parent), "--out", str(run))["imported"] == 1
    _check(run)
