"""WebVoyager result folders as trajectories.

WebVoyager writes one folder per task, `task<id>` (ids look like `Amazon--0`), holding the
chat it had with the model (`interact_messages.json`, images replaced by a placeholder) and
one `screenshot<k>.png` per observation, k = 1, 2, ... A user message is either an
observation (a screenshot was taken; its text may have been shortened to "(Omitted in
context.)") or, without "Observation:", a feedback line saying the previous action failed
or was badly formatted; then no screenshot is taken and the next reply sees the same page.
Each assistant reply (`Thought: ... Action: ...`) becomes one step.

WebVoyager records no URLs: the first observation gets the task's start URL, a `Google`
action leads to Google's home page, scrolling keeps the URL, and after any other action the
URL is unknown (empty).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from webtraj.formats.imported import (
    ImportArtifacts,
    Imported,
    ImportLog,
    WrongFormat,
    image_name,
)
from webtraj.formats.local_files import LocalFiles, image_kind
from webtraj.model import (
    Action,
    ActionKind,
    InputError,
    Observation,
    Step,
    Task,
    Termination,
    Trajectory,
)
from webtraj.model.jsonfile import read_json

AGENT = "webvoyager"
SOURCE = "webvoyager"
MESSAGES = "interact_messages.json"
GOOGLE = "https://www.google.com/"

_TASK = re.compile(r"Now given a task:\s*(.*?)\s+Please interact with (\S+) and get the answer",
                   re.DOTALL)
# Where the element texts (or the accessibility tree, text-only mode) start in a message.
_PAGE_TEXT_MARKERS = ("refer to the textual information.\n", "give the Thought and Action.\n")
_ACTION_SPLIT = re.compile(r"Thought:|Action:|Observation:")
_CLICK = re.compile(r"Click\s*\[?\s*(\d+)\s*\]?", re.IGNORECASE)
_TYPE = re.compile(r"Type\s*\[?\s*(\d+)\s*\]?\s*[;,]?\s*(.*)", re.IGNORECASE | re.DOTALL)
_SCROLL = re.compile(r"Scroll\s*\[?\s*(\d+|WINDOW)\s*\]?\s*[;,]?\s*\[?\s*(up|down)\b",
                     re.IGNORECASE)
_ANSWER = re.compile(r"ANSWER\s*[;:,]?\s*(.*)", re.DOTALL)


def _unbracket(text: str) -> str:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return text[1:-1].strip()
    return text


def parse_action(text: str) -> Action:
    """One WebVoyager action (`Click [5]`, `Type [2]; text`, `Scroll [WINDOW]; down`,
    `GoBack`, `Google`, `ANSWER; text`). Raises ValueError naming what is unsupported."""
    s = text.strip()
    if m := _ANSWER.match(s):
        return Action(kind=ActionKind.STOP, value=_unbracket(m.group(1)))
    if m := _CLICK.match(s):
        return Action(kind=ActionKind.CLICK, element_id=m.group(1))
    if m := _TYPE.match(s):
        # WebVoyager clears the box, types, then presses Enter itself.
        return Action(kind=ActionKind.TYPE, element_id=m.group(1), value=_unbracket(m.group(2)),
                      press_enter=True)
    if m := _SCROLL.match(s):
        # Scrolling inside element N (rather than the window) has no webtraj equivalent; the
        # direction is kept, the element is in raw_output.
        return Action(kind=ActionKind.SCROLL, value=m.group(2).lower())
    low = s.lower()
    if low.startswith("goback") or low.startswith("go back"):
        return Action(kind=ActionKind.GO_BACK)
    if low.startswith("google"):
        return Action(kind=ActionKind.GOTO, value=GOOGLE)
    if low.startswith("wait"):
        raise ValueError("unsupported WebVoyager action 'Wait' (a 5 s pause)")
    # WebVoyager itself found these anywhere in the text ("I will Click [5]"), in this order.
    for pattern in (_CLICK, _TYPE, _SCROLL, _ANSWER):
        m = pattern.search(s)
        if m:
            return parse_action(s[m.start():])
    first = s.split()[0] if s.split() else ""
    raise ValueError(f"unsupported WebVoyager action {first!r}" if first else "empty action")


def split_reply(reply: str) -> tuple[str, str | None]:
    """(thought, action text); action text None when the reply lacks Thought: or Action:,
    which WebVoyager answered with a format error."""
    if "Thought:" not in reply or "Action:" not in reply:
        return reply.strip(), None
    parts = _ACTION_SPLIT.split(reply)
    thought = parts[1].strip() if len(parts) > 1 else ""
    action = parts[2].strip() if len(parts) > 2 else ""
    return thought, action


def _text_of(content: Any) -> tuple[str, bool]:
    """The text of a message and whether it carried an image (a fresh observation)."""
    if isinstance(content, str):
        return content, False
    if isinstance(content, list):
        texts = [p.get("text", "") for p in content
                 if isinstance(p, Mapping) and p.get("type") == "text"]
        has_image = any(isinstance(p, Mapping) and p.get("type") == "image_url" for p in content)
        return "\n".join(t for t in texts if isinstance(t, str)), has_image
    raise TypeError(type(content).__name__)


def _page_text(text: str) -> str:
    for marker in _PAGE_TEXT_MARKERS:
        pos = text.find(marker)
        if pos >= 0:
            return text[pos + len(marker):].strip()
    return ""


def folder_task_id(folder: Path) -> str:
    name = folder.name
    return name[4:] if name.startswith("task") and len(name) > 4 else name


def load_tasks_jsonl(path: str | Path, log: ImportLog) -> dict[str, dict[str, Any]]:
    """WebVoyager's task file (`{"web_name", "id", "ques", "web"}` per line), by id."""
    path = Path(path)
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    out: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            log.error(f"invalid JSON: {exc}", file=path, record=f"line {n}")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), (str, int)):
            log.error("missing task id", file=path, record=f"line {n}", field="id")
            continue
        if not isinstance(obj.get("ques"), str):
            log.error("missing question", file=path, record=str(obj["id"]), field="ques")
            continue
        out[str(obj["id"])] = obj
    return out


def task_folders(root: str | Path) -> list[Path]:
    """Folders holding an `interact_messages.json` at or below root, in name order."""
    root = Path(root)
    if (root / MESSAGES).is_file():
        return [root]
    if not root.is_dir():
        raise InputError("not a folder", file=root)
    return sorted((p.parent for p in root.rglob(MESSAGES)), key=lambda p: str(p))


def load_task_folder(folder: str | Path, *, task_info: Mapping[str, Any] | None = None,
                     agent: str = AGENT, trial: int = 0,
                     files: LocalFiles | None = None) -> Imported:
    """One task folder as a trajectory; raises InputError when it cannot be read, or when
    a screenshot lies outside the imported folders (`files`, default the task folder) or
    is not a PNG or JPEG image."""
    folder = Path(folder)
    files = files if files is not None else LocalFiles([folder])
    file = folder / MESSAGES
    if not files.inside(file):
        raise InputError(f"{file} is outside the folders being imported; not read", file=file)
    messages = read_json(file)
    if not isinstance(messages, list) or not any(
            isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in messages):
        raise WrongFormat(f"not a WebVoyager result: expected {MESSAGES} to be a JSON list of "
                          'chat messages ([{"role": ..., "content": ...}, ...])', file=file)
    tid = folder_task_id(folder)
    question, start_url = None, None
    if task_info is not None:
        question, start_url = task_info.get("ques"), task_info.get("web")
    steps: list[Step] = []
    artifacts: ImportArtifacts = {}
    obs: Observation | None = None
    shot_data: bytes | None = None  # screenshot of `obs`, not yet stored
    n_obs = 0
    url = ""
    answer: str | None = None
    for i, msg in enumerate(messages):
        record = f"message {i}"
        if not isinstance(msg, Mapping) or not isinstance(msg.get("role"), str):
            raise InputError("not a chat message with a role", file=file, record=record)
        role = msg["role"]
        if role == "system":
            continue
        try:
            text, has_image = _text_of(msg.get("content"))
        except TypeError:
            raise InputError("content is neither text nor a list of parts", file=file,
                             record=record, field="content") from None
        if role == "user":
            if has_image or "Observation:" in text:
                if n_obs == 0:
                    m = _TASK.search(text)
                    if m:
                        question = question if question is not None else m.group(1)
                        start_url = start_url or m.group(2)
                    url = start_url or ""
                n_obs += 1
                shot = folder / f"screenshot{n_obs}.png"
                shot_data = None
                if shot.is_file() or shot.is_symlink():
                    shot_data = files.read_image(shot, file=file, record=record,
                                                 field=f"screenshot{n_obs}.png")
                obs = Observation(url=url, axtree=_page_text(text))
            elif steps:  # feedback: the previous action failed or was badly formatted
                steps[-1] = steps[-1].model_copy(update={
                    "error": text.strip() if not steps[-1].error
                    else f"{steps[-1].error}; {text.strip()}"})
                url = steps[-1].observation.url  # the page did not change
            continue
        if role != "assistant":
            continue
        if obs is None:
            raise InputError("assistant reply before any observation", file=file,
                             record=record)
        if shot_data is not None:
            name = image_name(len(steps), shot_data)
            artifacts[name] = shot_data
            obs = obs.model_copy(update={"screenshot": name})
            shot_data = None
        thought, action_text = split_reply(text)
        action: Action | None = None
        error: str | None = None
        if action_text is None:
            error = "format error: the reply has no 'Thought:' and 'Action:'"
        else:
            try:
                action = parse_action(action_text)
            except ValueError as exc:
                error = str(exc).splitlines()[0]
        steps.append(Step(index=len(steps), observation=obs, action=action, reasoning=thought,
                          raw_output=text, error=error))
        if action is not None and action.kind is ActionKind.STOP:
            answer = action.value
        if action is None or action.kind is ActionKind.SCROLL:
            url = obs.url
        elif action.kind is ActionKind.GOTO:
            url = action.value or ""
        else:
            url = ""
    final = None
    if shot_data is not None and obs is not None:  # an observation no reply followed
        name = "final.jpg" if image_kind(shot_data) == "jpg" else "final.png"
        artifacts[name] = shot_data
        final = obs.model_copy(update={"screenshot": name})
    site = None
    if task_info is not None and isinstance(task_info.get("web_name"), str):
        site = task_info["web_name"]
    elif "--" in tid:
        site = tid.rsplit("--", 1)[0]
    task = Task(task_id=tid, intent=question or "", site=site, start_url=start_url,
                metadata={"source": SOURCE})
    traj = Trajectory(
        trajectory_id=Trajectory.make_id(tid, agent, trial), task=task, agent=agent,
        trial=trial, steps=tuple(steps), final_observation=final, answer=answer,
        termination=Termination.IMPORTED,
        metadata={"source": SOURCE, "folder": str(folder), "screenshots": n_obs},
    )
    return Imported(traj, artifacts)


def iter_results(root: str | Path, *, log: ImportLog,
                 tasks: Mapping[str, Mapping[str, Any]] | None = None, agent: str = AGENT,
                 trial: int = 0) -> Iterator[Imported]:
    """Every task folder under root; a folder that cannot be read is logged and skipped."""
    files = LocalFiles([root])
    for folder in task_folders(root):
        info = tasks.get(folder_task_id(folder)) if tasks is not None else None
        try:
            yield load_task_folder(folder, task_info=info, agent=agent, trial=trial,
                                   files=files)
        except InputError as exc:
            log.errors.append(exc)
        except ValueError as exc:  # a value the model refuses: this folder only
            log.error(str(exc).splitlines()[0], file=folder)
