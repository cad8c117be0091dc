"""The settings of a run, declared once: each field's name, default, bounds and description
are what `webtraj run` offers (its options take their defaults and help from here), what
the Python API's `run(**settings)` accepts, and what run.json records (`RunInfo.settings`;
`RunDefinition` keeps the defining part, `DefiningSettings`).

Descriptions are written for both readers: they are the `--help` text of the option and the
API's documentation of the keyword."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, JsonValue, model_validator

from webtraj.model.base import FrozenModel

# How step screenshots are encoded: PNG keeps every pixel; JPEG and WebP are smaller, lossy.
ScreenshotFormat = Literal["png", "jpeg", "webp"]


# How a model is named on the command line and in the API (docs/llm.md); every command that
# calls a model says it so (cli/model_options.py).
LLM_SPEC_FORM = ("base_url=URL,model=NAME[,k=v] or a profile name (default: WEBTRAJ_LLM_* "
                 "variables or the config's default profile; docs/llm.md)")

class SuiteOptions(FrozenModel):
    """The options of a run's (or a listing's) suite, carried as given: the core declares
    none of them. Each suite reads them through its own options model, named in its registry
    entry (`webtraj.model.suite_registry.suite_options`, called by `Suite.options`), which
    refuses an option the suite does not take."""

    model_config = ConfigDict(extra="allow")


# The suite options an older run.json held as top-level settings, before suites had options
# models of their own: a stored run keeps loading, with them under `suite_options`.
_TOP_LEVEL_SUITE_OPTIONS = ("seeds", "subset", "site_urls_file", "accounts_file")


class DefiningSettings(FrozenModel):
    """The settings that define a run's episodes and their scores: a later command writing
    into the run must give the same ones (`RunDefinition.differences`)."""

    agent: str = Field(description="replay | heuristic | llm | mindact, an installed "
                       "plug-in's name, or your own pkg.module:Class.")
    agent_options: dict[str, JsonValue] = Field(
        default_factory=dict, description="The agent's options, checked against its Options "
        "model before any browser starts.")
    max_steps: int = Field(default=30, ge=1, description="Steps an episode may take before "
                           "it is ended.")
    evaluators: tuple[dict[str, JsonValue], ...] = Field(
        default=(), description="Evaluators run on every trajectory besides each task's own: "
        "NAME[:key=value,...] or pkg.mod:Class[:key=value,...].")
    evaluate: bool = Field(default=True, description="Score each trajectory as it is stored.")
    suite: str | None = Field(default=None, description="Built-in task suite (`webtraj sites "
                              "list`): booking | miniwob | webarena-verified.")
    today: str | None = Field(default=None, description="Sandbox 'today' (YYYY-MM-DD); a "
                              "resumed run keeps its own.")
    seed: int = Field(default=0, description="Sandbox seed (the sites' generated content).")
    allow_origins: tuple[str, ...] = Field(
        default=(), description="Other origins the browser may reach; each task's start "
        "origin always is.")


class RunConfig(DefiningSettings):
    """Every setting of a run (what a resumed run runs again): the defining ones and those
    that only choose which episodes run or how."""

    tasks_file: str | None = Field(default=None, description="Task file (JSONL or JSON list).")
    task_ids: tuple[str, ...] = Field(
        default=(), description="Only these task ids (MiniWoB++: task names such as "
        "click-button, or miniwob/NAME/SEED).")
    limit: int | None = Field(default=None, ge=1, description="Only the first N tasks.")
    # The model spec string; keys are refused inline, so none is ever recorded here.
    llm: str | None = Field(default=None, description="Model of the agent and of model-based "
                            f"evaluators: {LLM_SPEC_FORM}.")
    no_cache: bool = Field(default=False, description="Call the model even when an identical "
                             "call is cached.")
    trials: int = Field(default=1, ge=1, description="Episodes per task.")
    workers: int = Field(default=1, ge=1, description="Parallel browsers.")
    episodes_per_worker: int = Field(
        default=1, ge=1, description="Episodes each worker runs at once, in separate "
        "contexts of its browser (most of an episode is waiting: 2-4 keep a core busy).")
    executor: Literal["local", "ray"] = Field(default="local", description="local | ray")
    ray_address: str | None = Field(default=None, description="Ray cluster to join "
                                    "(default: start one on this machine).")
    timeout_s: float = Field(default=300.0, gt=0, description="Seconds per episode.")
    suite_options: SuiteOptions = Field(
        default_factory=SuiteOptions, description="The suite's own options, declared by "
        "the suite (the rows below, each an option of `webtraj run`); a suite refuses one "
        "it does not take.")
    screenshots: bool = Field(default=True, description="Store each step's screenshot.")
    screenshot_format: ScreenshotFormat = Field(
        default="png", description="png (lossless, default) | jpeg | webp: the lossy formats "
        "are smaller and a little faster; check your judges' results before relying on them.")
    screenshot_quality: int = Field(default=80, ge=1, le=100,
                                    description="Quality of jpeg/webp screenshots.")
    max_download_bytes: int = Field(
        default=50_000_000, ge=0, description="Bytes of one download an episode keeps in "
        "its scratch folder: a longer file is cut there and the cut recorded (a run keeps "
        "the record, never the file).")
    max_episode_download_bytes: int = Field(
        default=200_000_000, ge=0, description="Bytes of all of an episode's downloads "
        "together: what comes after is cut and the cut recorded.")
    set_of_marks: bool = Field(
        default=False, description="Also store each step's screenshot with every element id "
        "drawn at its box (step-NNN.som.png), for vision agents and VLM judges.")
    sandbox_host: str = Field(
        default="127.0.0.1", description="Address to serve the sandbox sites on: one a Ray "
        "cluster's other machines reach (default loopback: this machine only).")
    reset_cmds: dict[str, str] = Field(
        default_factory=dict, description="Per site, a shell command that resets it, run "
        "before each task that changes it (those run one at a time).")
    reset_wait_s: float = Field(
        default=300.0, ge=0, description="Seconds to wait, after a site's reset command, for "
        "the site to answer again (any HTTP status but 502-504); still down then, its task's "
        "episode is an error.")

    @model_validator(mode="before")
    @classmethod
    def _suite_options_at_top_level(cls, data: Any) -> Any:
        """An older run.json's suite options (top-level keys, each written even when unset)
        moved under `suite_options`; unset ones dropped, as a run without them records."""
        if not isinstance(data, dict) or not any(k in data for k in _TOP_LEVEL_SUITE_OPTIONS):
            return data
        data = dict(data)
        carried = data.get("suite_options") or {}
        carried = dict(carried.model_extra or {} if isinstance(carried, SuiteOptions)
                       else carried)
        for key in _TOP_LEVEL_SUITE_OPTIONS:
            value = data.pop(key, None)
            if value is not None and value != [] and value != ():
                carried.setdefault(key, value)
        data["suite_options"] = carried
        return data


def run_default(name: str) -> Any:
    """The default of the run setting `name`, for the models that carry a setting on (an
    episode's spec, the browser's config, a distill recipe's rollouts) without declaring
    it again."""
    return RunConfig.model_fields[name].get_default(call_default_factory=True)
