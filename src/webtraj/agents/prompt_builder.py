"""What the `llm` agent sees at a step, built in one place: the agent sends these messages,
curation writes them as each record's prompt, and training takes the records as they are. A
model trained on curated data (by `webtraj train` or by TRL directly on the JSONL) is thus
trained on the very prompts the agent sends, worked example included.

`PromptOptions` are the builder's settings: the `llm` agent's options, and what a curated
dataset's `stats.json` records under `prompt`.

Images (the contract vision agents, curation and the viewer share):
- `observation` says what the user turn shows: `tree` (the default), `screenshot`, `som`
  (the screenshot with every element id drawn at its box), `tree+screenshot`, `tree+som`
  (`--agent-option observation=tree+screenshot`); `image_max_side` is the longest side, in
  pixels, of the image sent.
- Without an image a user turn's `content` is a plain string (the bytes of every prompt
  and record made before images existed). With one it is a list of OpenAI content parts in
  this fixed order: `{"type": "text", "text": ...}`, then
  `{"type": "image_url", "image_url": {"url": "data:image/...;base64,..."}}`.
- The image is built from the step's stored screenshot (`Observation.screenshot`, a file of
  the trajectory folder given as `files`) by `llm.images.fit_image` (one downscale rule);
  the set-of-marks image is drawn on the downscaled screenshot from `Observation.boxes`
  (`browser.som.draw_marks`), never read from the run's optional `.som.png`. Both are
  deterministic, so the agent at run time and curation or the viewer rebuilding the prompt
  from the trajectory folder produce the same bytes.
- `Prompt.view` (an `ImageView`) maps the image's pixels to viewport CSS pixels; the agent
  performs a point action there and records the view, with the model's own points, as
  `Step.view`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pydantic import Field, model_serializer, model_validator

from webtraj.agents.prompting import (
    EXAMPLE_ASSISTANT,
    EXAMPLE_USER,
    ObservationMode,
    PromptHistory,
    image_note,
    system_prompt,
    tree_with_points,
    user_prompt,
)
from webtraj.browser.som import MarksUnavailable, draw_marks
from webtraj.llm.images import data_url, fit_image, image_size
from webtraj.llm.messages import Message
from webtraj.llm.tokens import trim_tree
from webtraj.model.action import ActionSet
from webtraj.model.errors import InputError
from webtraj.model.plugins import StrictOptions
from webtraj.model.task import Task
from webtraj.model.trajectory import ImageView, Observation, Step
from webtraj.store.files import Missing, NotInRun, artifact_files

# A chat turn in the OpenAI wire form, as the curated JSONL stores it: `content` is a string,
# or (with an image) a list of content parts.
Turn = dict[str, Any]
# Options that exist only for images: left out of the options' JSON when no image is sent,
# so a text-only dataset's stats.json and a run's settings keep their bytes.
_IMAGE_OPTIONS = ("observation", "image_max_side")


# Bounds of the options, part of the model so that every path (the agent's options, curation's
# --prompt-option, a stats.json read back) refuses the same values before any work starts:
# beyond them a value is a typo, and a number past 64 bits cannot even be written as JSON.
MAX_HISTORY_WINDOW = 10_000
MAX_TREE_TOKENS = 10_000_000  # ten times the largest context windows offered today


class PromptOptions(StrictOptions):
    """How the prompt is built (the defaults are the `llm` agent's)."""

    history_window: int = Field(default=8, ge=0, le=MAX_HISTORY_WINDOW,
                                description="previous steps shown")
    tree_tokens: int = Field(default=6_000, ge=200, le=MAX_TREE_TOKENS,
                             description="accessibility-tree budget")
    few_shot: bool = Field(default=True, description="include the worked example")
    action_set: ActionSet = Field(default=ActionSet.IDS, description="actions by element id "
                                  "(ids), at viewport coordinates (coords), or both")
    observation: ObservationMode = Field(
        default=ObservationMode.TREE, description="what a step shows of the page: tree, "
        "screenshot, som (ids drawn on the screenshot), tree+screenshot or tree+som")
    image_max_side: int = Field(default=1024, ge=64, le=8192, description="longest side, in "
                                "pixels, of the image sent (downscaled to fit)")

    @model_validator(mode="after")
    def _ids_need_something_that_shows_them(self) -> PromptOptions:
        if self.observation is ObservationMode.SCREENSHOT and self.action_set is ActionSet.IDS:
            raise ValueError("observation=screenshot shows no element ids: use "
                             "action_set=coords (or both), or observation=som")
        return self

    @model_serializer(mode="wrap")
    def _text_only_as_before(self, handler: Any) -> dict[str, Any]:
        out = handler(self)
        if self.observation is ObservationMode.TREE:
            for name in _IMAGE_OPTIONS:
                out.pop(name, None)
        return out


def fit_tree(axtree: str, query: list[str], tree_tokens: int) -> str:
    """`trim_tree(axtree, tree_tokens, query=query).text`, faster. `trim_tree` charges a line
    at most its UTF-8 length plus one, so a tree whose byte length fits the budget comes back
    unchanged: skip the per-line estimate then (same text, most of curation's cost at
    scale)."""
    if len(axtree.encode("utf-8")) + 1 <= tree_tokens:
        return axtree
    return trim_tree(axtree, tree_tokens, query=query).text


@dataclass(frozen=True)
class StepImage:
    """The image a step's prompt carries: its bytes as sent and how its pixels map to the
    page."""

    data: bytes
    view: ImageView

    @property
    def url(self) -> str:
        return data_url(self.data)


@dataclass(frozen=True)
class Prompt:
    """A step's messages in wire form and the image they carry (None: text only, or no
    screenshot at this step)."""

    turns: list[Turn]
    image: StepImage | None = None

    @property
    def view(self) -> ImageView | None:
        return self.image.view if self.image is not None else None


class FileReader(Protocol):
    """A trajectory folder read by name (the viewer's, which never follows a link)."""

    def read(self, name: str) -> bytes: ...


# Where a trajectory's files are: its folder, or a reader of it.
Folder = Path | FileReader


def screenshot_bytes(observation: Observation, files: Folder | None
                     ) -> bytes | None:
    """The step's stored screenshot, read inside `files` (the trajectory folder, or a reader
    of it); None when the step has none or the file is gone."""
    if observation.screenshot is None:
        return None
    if files is None:
        raise InputError("a prompt with images needs the trajectory folder its screenshots "
                         "are in", field="observation.screenshot")
    if not isinstance(files, Path):
        try:
            return files.read(observation.screenshot)
        except (LookupError, OSError):  # the reader refused it or it is gone
            return None
    try:  # the one reader of run artifacts: no link, nothing outside the folder
        return artifact_files(files).read(observation.screenshot)
    except Missing:
        return None
    except NotInRun as exc:
        raise InputError(f"screenshot {observation.screenshot!r} is outside the trajectory "
                         f"folder or reached through a link ({exc})", file=files,
                         field="observation.screenshot") from None


def step_image(observation: Observation, files: Folder | None, image: str,
               max_side: int) -> StepImage | None:
    """The image of `observation` as a vision model is sent it: the screenshot downscaled by
    the one rule (`fit_image`), with the ids drawn at their boxes for `som`."""
    raw = screenshot_bytes(observation, files)
    source = image_size(raw) if raw is not None else None
    if raw is None or source is None:
        return None
    data, (width, height) = fit_image(raw, max_side)
    view = ImageView(image=image, width=width, height=height,  # type: ignore[arg-type]
                     source_width=source[0], source_height=source[1],
                     device_pixel_ratio=observation.device_pixel_ratio or 1.0)
    if image == "som":
        boxes = {k: view.box_to_image(b) for k, b in (observation.boxes or {}).items()}
        try:
            data = draw_marks(data, boxes)
        except MarksUnavailable as exc:
            raise InputError(str(exc), field="observation") from None
    return StepImage(data=data, view=view)


class PromptBuilder:
    """The message list for (task, observation, earlier steps) under one set of options."""

    def __init__(self, options: PromptOptions | None = None) -> None:
        self.options = options or PromptOptions()
        self.system = system_prompt(self.options.action_set, self.options.observation)
        # The worked example acts by id on a tree: shown only where the prompt has both.
        self.example = (self.options.few_shot and self.options.observation.tree
                        and self.options.action_set is not ActionSet.COORDS)

    def tree(self, task: Task, observation: Observation,
             view: ImageView | None = None) -> str:
        """The page's tree as the prompt shows it: trimmed to the budget around the task's
        words, with element centres where the set acts at points (in the image's pixels
        when the prompt has an image, `view`)."""
        query = [task.intent, *(str(c.value) for c in task.constraints)]
        tree = fit_tree(observation.axtree, query, self.options.tree_tokens)
        if self.options.action_set is not ActionSet.IDS:
            boxes = observation.boxes
            if view is not None and boxes:
                boxes = {k: view.box_to_image(b) for k, b in boxes.items()}
            tree = tree_with_points(tree, boxes)
        return tree

    def build(self, task: Task, observation: Observation,
              history: Sequence[Step] | PromptHistory, *, files: Folder | None = None
              ) -> Prompt:
        """The step's prompt; `files` is the trajectory folder its screenshot is in (needed
        only when the options send images)."""
        out: list[Turn] = [{"role": "system", "content": self.system}]
        if self.example:
            out += [{"role": "user", "content": EXAMPLE_USER},
                    {"role": "assistant", "content": EXAMPLE_ASSISTANT}]
        mode = self.options.observation
        image = None
        if mode.image is not None:
            image = step_image(observation, files, mode.image, self.options.image_max_side)
        view = image.view if image is not None else None
        text = user_prompt(
            task, observation, history,
            tree=self.tree(task, observation, view) if mode.tree else None,
            window=self.options.history_window,
            image=None if mode.image is None else image_note(
                mode.image, (view.width, view.height) if view is not None else None))
        if mode.image is None:
            out.append({"role": "user", "content": text})
            return Prompt(turns=out)
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if image is not None:
            parts.append({"type": "image_url", "image_url": {"url": image.url}})
        out.append({"role": "user", "content": parts})
        return Prompt(turns=out, image=image)

    def turns(self, task: Task, observation: Observation,
              history: Sequence[Step] | PromptHistory, *, files: Folder | None = None
              ) -> list[Turn]:
        """The messages in wire form: system, the worked example (when used), the step's
        user turn."""
        return self.build(task, observation, history, files=files).turns

    def messages(self, task: Task, observation: Observation,
                 history: Sequence[Step] | PromptHistory, *, files: Folder | None = None
                 ) -> list[Message]:
        """The same messages, typed for the LLM client."""
        return typed(self.turns(task, observation, history, files=files))


def typed(turns: Sequence[Turn]) -> list[Message]:
    """Wire-form turns as the LLM client's messages."""
    return [Message.model_validate(t) for t in turns]


@lru_cache(maxsize=16)
def prompt_builder(options: PromptOptions) -> PromptBuilder:
    """One builder per set of options (curation asks for one per trajectory)."""
    return PromptBuilder(options)
