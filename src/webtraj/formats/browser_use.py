"""browser-use agent histories (`AgentHistoryList` saved with `save_to_file`) as trajectories.

A browser-use step is one model call that may emit several actions; each action becomes its
own webtraj Step, and the actions of one call share that call's observation (the browser
state the model saw). Both serializations are read: `model_output.current_state` (before
0.3) and top-level `thinking` / `next_goal` (later); `state.screenshot` in base64 (before
0.6) and `state.screenshot_path` (later; the file is looked up as written, next to the
history file, and in its `screenshots/` folder, but read only inside the imported folders
and only if it is a PNG or JPEG: anything else is an error for that history entry). Action
names of every release map to webtraj actions (`go_to_url` and `navigate`, `click_element`,
`click_element_by_index` and `click`, ...); an action webtraj has no equivalent for (`wait`,
`extract_content`, file tools...) keeps its place as a step without an action whose error names it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import orjson

from webtraj.formats.imported import (
    ImportArtifacts,
    Imported,
    ImportLog,
    WrongFormat,
    image_name,
)
from webtraj.formats.local_files import LocalFiles, check_image
from webtraj.model import (
    Action,
    ActionKind,
    InputError,
    Observation,
    Step,
    Tab,
    Task,
    Termination,
    Trajectory,
)
from webtraj.model.jsonfile import read_json

AGENT = "browser-use"
SOURCE = "browser-use"
# Stems that say nothing about the task; the folder name is used as task id instead.
_GENERIC_STEMS = {"history", "agent_history", "agenthistory", "agent-history", "result"}
_USER_REQUEST = re.compile(r"<user_request>\s*(.*?)\s*</user_request>", re.DOTALL)
_SEARCH_URLS = {
    "google": "https://www.google.com/search?q={}",
    "bing": "https://www.bing.com/search?q={}",
    "duckduckgo": "https://duckduckgo.com/?q={}",
}


# What `load_history` reads, for the message of a file of another format.
EXPECTED = ('a JSON object {"history": [{"model_output": ..., "result": [...], "state": '
            '{"url": ...}}, ...]} as written by AgentHistoryList.save_to_file')


def _looks_like_entry(item: Any) -> bool:
    return isinstance(item, Mapping) and any(k in item for k in ("state", "model_output",
                                                                 "result"))


class Unmapped(ValueError):
    """An action webtraj cannot express, or whose parameters are unusable."""


def default_task_id(path: Path) -> str:
    stem = path.stem
    if stem.lower() in _GENERIC_STEMS and path.parent.name:
        return path.parent.name
    return stem


# --- actions -------------------------------------------------------------------------------
def _index(params: Mapping[str, Any], name: str) -> str:
    idx = params.get("index")
    if isinstance(idx, bool) or not isinstance(idx, (int, str)) or str(idx).strip() == "":
        if params.get("coordinate_x") is not None or params.get("coordinate_y") is not None:
            raise Unmapped(f"{name} at coordinates ({params.get('coordinate_x')}, "
                           f"{params.get('coordinate_y')}) names no element")
        raise Unmapped(f"{name} has no element index (params.index)")
    return str(idx)


def _text(params: Mapping[str, Any], key: str, name: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise Unmapped(f"{name} has no text (params.{key})")
    return value


def _goto(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    url = params.get("url")
    if not isinstance(url, str) or not url.strip():
        raise Unmapped(f"{name} has no url (params.url)")
    return Action(kind=ActionKind.GOTO, value=url)


def _search(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    query = _text(params, "query", name)
    engine = str(params.get("engine") or ("google" if name == "search_google" else
                                          "duckduckgo")).lower()
    template = _SEARCH_URLS.get(engine)
    if template is None:
        raise Unmapped(f"{name} with unknown search engine {engine!r}")
    return Action(kind=ActionKind.GOTO, value=template.format(quote_plus(query)))


def _click(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    return Action(kind=ActionKind.CLICK, element_id=_index(params, name))


def _input(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    # browser-use types without pressing Enter (Enter is a separate send_keys).
    return Action(kind=ActionKind.TYPE, element_id=_index(params, name),
                  value=_text(params, "text", name), press_enter=False)


def _select(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    return Action(kind=ActionKind.SELECT, element_id=_index(params, name),
                  value=_text(params, "text", name))


def _keys(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    keys = _text(params, "keys", name)
    if not keys.strip():
        raise Unmapped(f"{name} has empty keys")
    return Action(kind=ActionKind.PRESS, value=keys)


def _scroll(direction: str | None) -> Callable[..., Action]:
    def build(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
        d = direction
        if d is None:
            d = "down" if params.get("down", True) else "up"
        return Action(kind=ActionKind.SCROLL, value=d)
    return build


def _simple(kind: ActionKind) -> Callable[..., Action]:
    def build(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
        return Action(kind=kind)
    return build


def _tab_focus(params: Mapping[str, Any], name: str, tabs: list[Mapping[str, Any]]) -> Action:
    page_id = params.get("page_id")
    if isinstance(page_id, int) and not isinstance(page_id, bool) and page_id >= 0:
        return Action(kind=ActionKind.TAB_FOCUS, tab_index=page_id)
    tab_id = params.get("tab_id")
    if isinstance(tab_id, str) and tab_id:
        for i, tab in enumerate(tabs):
            tid = str(tab.get("tab_id") or tab.get("target_id") or "")
            if tid and (tid == tab_id or tid.endswith(tab_id)):
                return Action(kind=ActionKind.TAB_FOCUS, tab_index=i)
        raise Unmapped(f"{name}: tab {tab_id!r} is not among the step's tabs")
    url = params.get("url")
    if isinstance(url, str) and url:
        for i, tab in enumerate(tabs):
            if url in str(tab.get("url") or ""):
                return Action(kind=ActionKind.TAB_FOCUS, tab_index=i)
        raise Unmapped(f"{name}: no tab of the step matches url {url!r}")
    raise Unmapped(f"{name} names no tab (params.page_id or params.tab_id)")


def _done(params: Mapping[str, Any], name: str, _tabs: list[Mapping[str, Any]]) -> Action:
    if isinstance(params.get("text"), str):
        return Action(kind=ActionKind.STOP, value=params["text"])
    if "data" in params:  # structured output: the answer is the data as JSON
        return Action(kind=ActionKind.STOP, value=orjson.dumps(params["data"]).decode())
    return Action(kind=ActionKind.STOP, value="")


# Every action name browser-use has used for something webtraj can express.
ACTIONS: dict[str, Callable[[Mapping[str, Any], str, list[Mapping[str, Any]]], Action]] = {
    "go_to_url": _goto, "navigate": _goto, "open_tab": _goto,
    "search_google": _search, "search": _search,
    "go_back": _simple(ActionKind.GO_BACK),
    "click_element": _click, "click_element_by_index": _click, "click": _click,
    "input_text": _input, "input": _input,
    "send_keys": _keys,
    "scroll_down": _scroll("down"), "scroll_up": _scroll("up"), "scroll": _scroll(None),
    "switch_tab": _tab_focus, "switch": _tab_focus,
    "close_tab": _simple(ActionKind.CLOSE_TAB), "close": _simple(ActionKind.CLOSE_TAB),
    "select_dropdown_option": _select, "select_dropdown": _select,
    "done": _done,
}


def map_action(name: str, params: Mapping[str, Any],
               tabs: list[Mapping[str, Any]] | None = None) -> Action:
    """The webtraj action for one browser-use action; raises Unmapped with the reason."""
    build = ACTIONS.get(name)
    if build is None:
        raise Unmapped(f"unsupported browser-use action {name!r}")
    try:
        return build(params, name, tabs or [])
    except Unmapped:
        raise
    except ValueError as exc:
        raise Unmapped(f"{name}: {str(exc).splitlines()[0]}") from None


# --- observations --------------------------------------------------------------------------
def _tabs(raw: Any) -> tuple[Tab, ...]:
    if not isinstance(raw, list):
        return ()
    out = []
    for i, tab in enumerate(raw):
        if isinstance(tab, Mapping) and isinstance(tab.get("url"), str):
            out.append(Tab(index=i, url=tab["url"], title=str(tab.get("title") or "")))
    return tuple(out)


def _decode_b64(data: str) -> bytes:
    if data.startswith("data:"):
        data = data.partition(",")[2]
    return base64.b64decode(data, validate=True)


def _screenshot_candidates(raw: str, history_file: Path) -> list[Path]:
    """Where a `screenshot_path` may be: as written, next to the history file, or in its
    `screenshots/` folder (histories are often moved away from the agent's temp folder)."""
    p = Path(raw)
    base = history_file.parent
    return [p, base / p, base / "screenshots" / p.name, base / p.name]


# --- the history file ---------------------------------------------------------------------
def _reasoning(mo: Mapping[str, Any]) -> str:
    brain = mo.get("current_state") if isinstance(mo.get("current_state"), Mapping) else mo
    parts = []
    for key, label in (("thinking", ""), ("next_goal", "Next goal: ")):
        value = brain.get(key) if isinstance(brain, Mapping) else None
        if not isinstance(value, str):
            value = mo.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(label + value.strip())
    return "\n".join(parts)


def _task_text(data: Mapping[str, Any], history: list[Any]) -> str:
    if isinstance(data.get("task"), str):
        return data["task"]
    for item in history:
        msg = item.get("state_message") if isinstance(item, Mapping) else None
        if isinstance(msg, str):
            m = _USER_REQUEST.search(msg)
            if m:
                return m.group(1)
    return ""


def _step_time(meta: Any) -> tuple[float | None, float | None]:
    if not isinstance(meta, Mapping):
        return None, None
    start, end = meta.get("step_start_time"), meta.get("step_end_time")
    if not isinstance(start, (int, float)):
        return None, None
    if isinstance(end, (int, float)) and end >= start:
        return float(start), float(end - start)
    return float(start), None


def load_history(path: str | Path, *, log: ImportLog | None = None, task: str | None = None,
                 task_id: str | None = None, agent: str = AGENT, trial: int = 0,
                 files: LocalFiles | None = None) -> Imported:
    """One history file as a trajectory. A file that cannot be read at all raises
    InputError; a bad history entry is logged (file, `history[i]`, field) and left out.
    Screenshot files are read only inside the history's folder (or `files`' folders)."""
    path = Path(path)
    log = log if log is not None else ImportLog()
    files = files if files is not None else LocalFiles([path.parent])
    data = read_json(path)
    if isinstance(data, list):  # a bare list of history entries
        data = {"history": data}
    if not isinstance(data, Mapping) or not isinstance(data.get("history"), list):
        raise WrongFormat(f"not a browser-use history: expected {EXPECTED}", file=path,
                          field="history")
    history: list[Any] = data["history"]
    if not history:
        raise InputError("the history is empty: no step to import", file=path,
                         field="history")
    if not any(_looks_like_entry(item) for item in history):
        raise WrongFormat(f"not a browser-use history: no entry has 'state', 'model_output' "
                          f"or 'result'; expected {EXPECTED}", file=path, field="history")
    tid = task_id or default_task_id(path)
    start_url = None
    steps: list[Step] = []
    artifacts: ImportArtifacts = {}
    answer: str | None = None
    success: bool | None = None
    skipped: list[str] = []
    finished: float | None = None
    for i, item in enumerate(history):
        record = f"history[{i}]"
        try:
            new_steps, shot, done = _entry_steps(item, len(steps), path, record, log, files)
        except InputError as exc:
            log.errors.append(exc)
            skipped.append(str(exc))
            continue
        if shot is not None:
            artifacts[shot[0]] = shot[1]
        if not steps and new_steps and new_steps[0].observation.url.startswith("http"):
            start_url = new_steps[0].observation.url  # the page the agent was started on
        steps.extend(new_steps)
        if new_steps and new_steps[0].started_at is not None:
            finished = new_steps[0].started_at + (new_steps[0].duration_s or 0.0)
        if done is not None:
            answer, success = done
    if not steps:
        raise InputError(f"no history entry could be read ({len(skipped)} bad entries, "
                         "listed above): nothing to import", file=path, field="history")
    meta: dict[str, Any] = {"source": SOURCE, "file": str(path)}
    if success is not None:
        meta["success"] = success
    if skipped:
        meta["skipped_records"] = skipped
    task_obj = Task(task_id=tid, intent=task if task is not None else _task_text(data, history),
                    start_url=start_url, metadata={"source": SOURCE})
    traj = Trajectory(
        trajectory_id=Trajectory.make_id(tid, agent, trial), task=task_obj, agent=agent,
        trial=trial, steps=tuple(steps), answer=answer, termination=Termination.IMPORTED,
        started_at=steps[0].started_at if steps else None, finished_at=finished,
        metadata=meta,
    )
    return Imported(traj, artifacts)


def _action_names(entry: Any) -> list[str]:
    """The action name(s) of one `{name: params}` entry; unset actions dumped as null
    (a plain pydantic dump of an ActionModel) do not count."""
    if not isinstance(entry, Mapping):
        return []
    names = [n for n in entry if n != "interacted_element"]
    if len(names) > 1:
        names = [n for n in names if entry[n] is not None]
    return names


def _entry_steps(item: Any, first: int, path: Path, record: str, log: ImportLog,
                 files: LocalFiles) -> tuple[list[Step], tuple[str, bytes | Path] | None,
                            tuple[str, bool | None] | None]:
    """Steps of one history entry, its screenshot artifact, and (answer, success) if it
    holds a `done` action."""
    if not isinstance(item, Mapping):
        raise InputError("history entry is not an object", file=path, record=record)
    state = item.get("state")
    if not isinstance(state, Mapping):
        raise InputError("missing or not an object", file=path, record=record, field="state")
    mo = item.get("model_output")
    if mo is not None and not isinstance(mo, Mapping):
        raise InputError("not an object", file=path, record=record, field="model_output")
    actions = mo.get("action") if mo is not None else []
    if isinstance(actions, Mapping) and isinstance(item.get("result"), Mapping):
        # Releases before 0.1.17 held one action and one result per entry.
        actions, item = [actions], {**item, "result": [item["result"]]}
    if not isinstance(actions, list):
        raise InputError("not a list", file=path, record=record, field="model_output.action")
    results = item.get("result") if isinstance(item.get("result"), list) else []
    url = state.get("url")
    if not isinstance(url, str):
        log.warn("missing URL; imported as empty", file=path, record=record, field="state.url")
        url = ""
    raw_tabs = state.get("tabs") if isinstance(state.get("tabs"), list) else []
    shot: tuple[str, bytes | Path] | None = None
    if isinstance(state.get("screenshot"), str) and state["screenshot"]:
        try:
            png = _decode_b64(state["screenshot"])
        except (binascii.Error, ValueError) as exc:
            log.warn(f"screenshot is not base64 ({exc}); left out", file=path, record=record,
                     field="state.screenshot")
        else:
            check_image(png, file=path, record=record, field="state.screenshot")
            shot = (image_name(first, png), png)
    elif isinstance(state.get("screenshot_path"), str) and state["screenshot_path"]:
        raw_path = state["screenshot_path"]
        where = {"file": path, "record": record, "field": "state.screenshot_path"}
        found = files.find(_screenshot_candidates(raw_path, path), **where)
        if found is None:
            log.warn(f"screenshot {raw_path!r} not found; left out", **where)
        else:
            data = files.read_image(found, **where)
            shot = (image_name(first, data), data)
    obs = Observation(url=url, title=str(state.get("title") or ""), tabs=_tabs(raw_tabs),
                      screenshot=shot[0] if shot else None)
    started, duration = _step_time(item.get("metadata"))
    reasoning = _reasoning(mo) if mo is not None else ""
    raw = orjson.dumps(mo).decode() if mo is not None else None
    steps: list[Step] = []
    done: tuple[str, bool | None] | None = None
    if not actions:
        errors = [r.get("error") for r in results if isinstance(r, Mapping) and r.get("error")]
        reason = "; ".join(str(e) for e in errors) or "no model output"
        return ([Step(index=first, observation=obs, reasoning=reasoning, raw_output=raw,
                      started_at=started, duration_s=duration, error=reason)], shot, None)
    for k, entry in enumerate(actions):
        result = results[k] if k < len(results) and isinstance(results[k], Mapping) else {}
        action: Action | None = None
        error: str | None = None
        names = _action_names(entry)
        if len(names) != 1:
            error = f"model_output.action[{k}] is not one {{name: params}} object"
        else:
            name = names[0]
            params = entry[name] if isinstance(entry[name], Mapping) else {}
            try:
                action = map_action(name, params, raw_tabs)
            except Unmapped as exc:
                error = str(exc)
            if action is not None and action.kind is ActionKind.STOP:
                succ = params.get("success")
                if not isinstance(succ, bool):
                    succ = result.get("success") if isinstance(result.get("success"),
                                                               bool) else None
                done = (action.value or "", succ)
        if result.get("error"):
            error = f"{error}; {result['error']}" if error else str(result["error"])
        elif k >= len(results) and results:
            error = error or "no result recorded: browser-use did not run this action"
        steps.append(Step(index=first + k, observation=obs, action=action,
                          reasoning=reasoning, raw_output=raw, started_at=started,
                          duration_s=duration if k == 0 else None, error=error))
    return steps, shot, done
