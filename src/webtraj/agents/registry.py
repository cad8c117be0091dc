"""Agents by name or spec, for the CLI, the Python API and the executors.

An agent is named by a built-in name (`heuristic`), an entry point of the `webtraj.agents`
group, or a spec `my_pkg.my_module:MyAgent` (a class or a factory). Executors rebuild agents
in worker processes from (spec string, options JSON), so the spec is what a run records.

A plug-in declares its options as a pydantic model in an `Options` attribute; it is then
called with `options=<validated model>`. A factory that has an `llm` parameter is given the
run's `LLMClient` (from `--llm`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from webtraj.agents.mindact.settings import MindActOptions
from webtraj.agents.prompt_builder import PromptOptions
from webtraj.agents.protocol import Agent, AgentError
from webtraj.model import InputError
from webtraj.model.plugins import (
    StrictOptions,
    entry_point_names,
    is_spec,
    load_entry_point,
    load_spec,
    options_model_of,
    validate_options,
)

ENTRY_POINT_GROUP = "webtraj.agents"


class LLMAgentOptions(PromptOptions):
    """Options of the `llm` agent: those of its prompt (`agents/prompt_builder.py`)."""


# (options model or None, LLM client or None) -> agent
Builder = Callable[[BaseModel | None, Any], Agent]


@dataclass(frozen=True)
class AgentEntry:
    name: str
    build: Builder
    options: type[BaseModel] | None = None
    needs_llm: bool = False
    # Takes an LLM client when the run has one (`--llm`), even if it can do without.
    wants_llm: bool = False
    help: str = ""


def _replay(_opts: Any, _llm: Any) -> Agent:
    from webtraj.agents.replay import ReplayAgent

    return ReplayAgent()


def _heuristic(_opts: Any, _llm: Any) -> Agent:
    from webtraj.agents.heuristic import HeuristicAgent

    return HeuristicAgent()


def _llm_agent(opts: Any, llm: Any) -> Agent:
    from webtraj.agents.llm_agent import LLMAgent

    return LLMAgent(llm, opts)


class ExplorerOptions(StrictOptions):
    """Options of the explorers (`webtraj explore`): how often the prefix is read as a
    sub-task, and after how many checks in a row without a new one the episode stops."""

    interval: int = Field(default=3, ge=1, description="steps between sub-task checks")
    patience: int = Field(default=2, ge=1, description="checks without a new sub-task "
                          "before the episode is pruned")


class LLMExplorerOptions(PromptOptions):
    """Options of the `explore-llm` explorer: its prompt's, and the pruning's."""

    interval: int = Field(default=3, ge=1, description="steps between sub-task checks")
    patience: int = Field(default=2, ge=1, description="checks without a new sub-task "
                          "before the episode is pruned")


def _explore_persona(opts: Any, _llm: Any) -> Agent:
    from webtraj.agents.explore.policy import PersonaExplorer

    return PersonaExplorer(opts.interval, opts.patience)


def _explore_llm(opts: Any, llm: Any) -> Agent:
    from webtraj.agents.explore.llm import LLMExplorer

    prompt = PromptOptions.model_validate(opts.model_dump(exclude={"interval", "patience"}))
    return LLMExplorer(llm, prompt, interval=opts.interval, patience=opts.patience)


def _mindact(opts: Any, llm: Any) -> Agent:
    try:
        from webtraj.agents.mindact.live_agent import MindActAgent
    except ImportError as exc:
        raise AgentError(f"the mindact agent is not available: {exc}") from None
    return MindActAgent(llm, opts)


BUILTIN_AGENTS: dict[str, AgentEntry] = {
    "replay": AgentEntry("replay", _replay, help="the task's reference actions, in order"),
    "heuristic": AgentEntry("heuristic", _heuristic,
                            help="model-free baseline for the booking sandbox"),
    "llm": AgentEntry("llm", _llm_agent, LLMAgentOptions, needs_llm=True, wants_llm=True,
                      help="an OpenAI-compatible model reads the page and acts"),
    "mindact": AgentEntry("mindact", _mindact, MindActOptions, needs_llm=True, wants_llm=True,
                          help="MindAct: candidate ranking, then multiple choice"),
    "explore-persona": AgentEntry("explore-persona", _explore_persona, ExplorerOptions,
                                  help="explores without a task, as a persona (no model)"),
    "explore-llm": AgentEntry("explore-llm", _explore_llm, LLMExplorerOptions,
                              needs_llm=True, wants_llm=True,
                              help="a model explores without a task, as a persona"),
}
AGENT_NAMES = tuple(BUILTIN_AGENTS)


def agent_names() -> list[str]:
    """Built-in names, then installed entry points."""
    return list(AGENT_NAMES) + [n for n in entry_point_names(ENTRY_POINT_GROUP)
                                if n not in BUILTIN_AGENTS]


def _plugin_entry(name: str, target: Any) -> AgentEntry:
    if not callable(target):
        raise InputError(f"agent {name!r} is not a class or a factory", field="agent")
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        params = {}
    model = options_model_of(target)
    wants_llm = "llm" in params

    def build(opts: BaseModel | None, llm: Any) -> Agent:
        kwargs: dict[str, Any] = {}
        if model is not None:
            kwargs["options"] = opts
        if wants_llm:
            kwargs["llm"] = llm
        try:
            agent = target(**kwargs)
        except Exception as exc:
            raise AgentError(f"agent {name!r} failed to start: {type(exc).__name__}: {exc}"
                             ) from None
        _check_protocol(name, agent)
        return agent

    needs = wants_llm and params["llm"].default is inspect.Parameter.empty
    return AgentEntry(name, build, model, needs_llm=needs, wants_llm=wants_llm,
                      help=(inspect.getdoc(target) or "").split("\n")[0])


def _check_protocol(name: str, agent: Any) -> None:
    act = getattr(agent, "act", None)
    if act is None or not inspect.iscoroutinefunction(act):
        raise AgentError(f"agent {name!r} does not implement webtraj.agents.Agent: it needs "
                         "an `async def act(task, observation, history)` method")
    if not isinstance(getattr(agent, "name", None), str):
        raise AgentError(f"agent {name!r} does not implement webtraj.agents.Agent: it needs "
                         "a `name` string")


def resolve_agent(spec: str) -> AgentEntry:
    """The entry for a built-in name, an entry-point name or a `module:Name` spec."""
    if spec in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[spec]
    if is_spec(spec):
        return _plugin_entry(spec, load_spec(spec, what="agent"))
    target = load_entry_point(ENTRY_POINT_GROUP, spec, what="agent")
    if target is None:
        raise InputError(f"unknown agent {spec!r}; choose one of {', '.join(agent_names())} "
                         "or give 'package.module:ClassOrFactory'", field="agent")
    return _plugin_entry(spec, target)


def recorded_prompt(agent: str, options: Mapping[str, Any] | None) -> PromptOptions | None:
    """The prompt a built-in agent whose options are prompt options (llm, explore-llm) was
    sent, read back from the options a run recorded for it; None for any other agent. Curation
    and the distill recipe build records with it, so a student learns from what its teacher
    saw (images included) without the user repeating the agent's options."""
    entry = BUILTIN_AGENTS.get(agent)
    if entry is None or entry.options is None or not issubclass(entry.options, PromptOptions):
        return None
    opts = validate_options(entry.options, options or {}, owner=f"agent {agent!r}")
    return PromptOptions.model_validate(
        {name: getattr(opts, name) for name in PromptOptions.model_fields})


def check_agent_options(spec: str, options: Mapping[str, Any] | None = None, *,
                        file: str | None = None) -> BaseModel | None:
    """Validate options for an agent (no browser, no model call): the fail-fast check."""
    entry = resolve_agent(spec)
    return validate_options(entry.options, options or {}, owner=f"agent {spec!r}", file=file)


def make_agent(name: str, *, llm: str | None = None, no_cache: bool = False,
               options: Mapping[str, Any] | None = None, client: Any = None) -> Agent:
    """Build an agent. `client` (an LLMClient) wins over building one from the `llm` spec."""
    entry = resolve_agent(name)
    opts = validate_options(entry.options, options or {}, owner=f"agent {name!r}")
    if entry.options is not None and opts is None:
        opts = entry.options()
    if client is None and (entry.needs_llm or (entry.wants_llm and llm)):
        from webtraj.llm import LLMClient

        client = LLMClient.from_cli(llm, no_cache=no_cache)
    return entry.build(opts, client)
