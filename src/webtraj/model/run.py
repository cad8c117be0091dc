"""RunInfo: the typed record of how a run was made (settings, sandbox, agent, model,
evaluators, versions) and what it cost (timings, usage).

Version 1 kept the settings in a loose `config` dict; such files are read and upgraded in
memory (`_upgrade_v1`), so runs written by earlier versions still open."""

from __future__ import annotations

import contextlib
import datetime as dt
import platform
import time
import uuid
from typing import Any, ClassVar, Literal

from pydantic import Field, JsonValue, ValidationError, field_validator, model_validator

from webtraj import __version__
from webtraj.model.base import Document, FrozenModel
from webtraj.model.command_line import redact_command
from webtraj.model.run_settings import DefiningSettings, RunConfig
from webtraj.model.suite_registry import default_suite

__all__ = ["DefiningSettings", "ModelInfo", "RunConfig", "RunDefinition", "RunInfo",
           "SandboxInfo"]


class SandboxInfo(FrozenModel):
    """The sandbox sites a run serves: their date and seed stay fixed for the life of the run
    (a resumed run sees the same tasks, and the oracle rebuilds the same pages)."""

    suite: str = Field(default_factory=default_suite)
    today: dt.date
    seed: int = 0


class ModelInfo(FrozenModel):
    """The model endpoint a run's agent or judges used. Never a key."""

    endpoint: str
    model: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    profile: str | None = None


class RunDefinition(DefiningSettings):
    """The settings that define a run's episodes and their scores (`DefiningSettings`, as
    the command gave them), with the model the agent's `llm` spec resolved to and the digest
    of its tasks file. Writing into a run with other ones would mix two experiments under
    one name, so it is refused (`differences`).

    Settings that only choose which episodes run (task ids, --limit, trials, seeds) or how
    fast (workers, executor, timeout, screenshot encoding) are not part of it. `today` is
    None when the command named no date (the run keeps the one it recorded); a
    `tasks_digest` of None (a run written before digests were kept) is not compared."""

    kind: Literal["run", "record"] = "run"
    # The agent's model: model name and sampling parameters are compared (not its endpoint,
    # which may move when a server restarts; nor retries or timeouts).
    model: ModelInfo | None = None
    # sha256 of the tasks file's bytes: the same path holding other tasks is another run.
    tasks_digest: str | None = None

    @classmethod
    def of(cls, config: RunConfig, *, kind: Literal["run", "record"] = "run",
           model: ModelInfo | None = None, tasks_digest: str | None = None) -> RunDefinition:
        """`model`: `config.llm` resolved (by the llm layer, which this layer cannot use)."""
        defining = {name: getattr(config, name) for name in DefiningSettings.model_fields}
        defining["allow_origins"] = tuple(sorted(config.allow_origins))
        return cls(kind=kind, model=model, tasks_digest=tasks_digest, **defining)

    def differences(self, wanted: RunDefinition) -> list[str]:
        """What `wanted` (this command) changes of this (the run's) definition, one line per
        setting; empty when the command may write into the run. `evaluate` may be switched
        on (scoring what was stored unscored) but the evaluators must agree."""
        out = []
        for name in type(self).model_fields:
            have, want = getattr(self, name), getattr(wanted, name)
            if name == "model":  # the same model may be served elsewhere (a restart)
                have, want = (m.model_copy(update={"endpoint": ""}) if m else m
                              for m in (have, want))
            if have == want:
                continue
            if name == "today" and want is None:
                continue
            if name == "tasks_digest" and (have is None or want is None):
                continue
            if name == "evaluate":
                continue
            out.append(f"{name}: the run has {_shown(have)}, this command {_shown(want)}")
        return out


def _shown(value: object) -> str:
    if isinstance(value, str) and len(value) == 64 and value.isalnum():
        return value[:12]  # a digest
    if isinstance(value, ModelInfo):
        return " ".join(f"{k}={v}" for k, v in value.model_dump(exclude_none=True).items())
    if value is None or value == () or value == {}:
        return "none"
    return repr(value) if isinstance(value, str) else str(value)


class RunInfo(Document):
    schema_version: int = 2
    SUPPORTED_VERSIONS: ClassVar[frozenset[int]] = frozenset({1, 2})
    run_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    name: str = ""
    created_at: float = Field(default_factory=time.time)
    webtraj_version: str = __version__
    python_version: str = Field(default_factory=platform.python_version)
    command: str = ""
    seed: int | None = None
    settings: RunConfig | None = None
    # What defines the run (compared when a later command writes into it); None for runs
    # written before it was kept (then derived from `settings`) and for imported runs.
    definition: RunDefinition | None = None
    sandbox: SandboxInfo | None = None
    # Base URL of each site, as evaluators map URLs to sites. A trajectory made against other
    # URLs (a sandbox served on other ports) carries its own `Trajectory.site_urls`.
    site_urls: dict[str, str] = Field(default_factory=dict)
    model: ModelInfo | None = None
    # Where an imported run came from (browser-use, webvoyager, ...).
    source: str | None = None
    # Aggregate results a producer stores with the run (e.g. the Mind2Web Eval summary).
    results: dict[str, JsonValue] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    # Model usage totals (calls, tokens, cache hits, cost) written by the llm layer.
    usage: dict[str, JsonValue] = Field(default_factory=dict)

    def recorded_definition(self) -> RunDefinition | None:
        """The run's definition, or the one its recorded settings imply (older runs)."""
        if self.definition is not None:
            return self.definition
        if self.settings is None:
            return None
        found = RunDefinition.of(self.settings, model=self.model)
        if self.sandbox is not None:  # the date the run served, not the one it was given
            found = found.model_copy(update={"today": self.sandbox.today.isoformat()})
        return found

    @field_validator("command")
    @classmethod
    def _redacted_command(cls, v: str) -> str:
        """A password on the command line (a `--reset-cmd`'s) never reaches run.json, the
        report or the viewer."""
        return redact_command(v) if v else v

    @field_validator("settings")
    @classmethod
    def _redacted_reset_cmds(cls, v: RunConfig | None) -> RunConfig | None:
        if v is None or not v.reset_cmds:
            return v
        return v.model_copy(update={"reset_cmds": {site: redact_command(cmd)
                                                   for site, cmd in v.reset_cmds.items()}})

    @model_validator(mode="before")
    @classmethod
    def _upgrade_v1(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("schema_version", 1) == 1 and "config" in data:
            return _upgrade_v1(data)
        return data


def _upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 kept everything in `config`: today/seed/site_urls for a sandbox run,
    `imported_from` for an import, `kind`/`scorers`/`group_by`/`summary`/`grouped` for an
    Eval, and the dumped run settings themselves."""
    out = {k: v for k, v in data.items() if k != "config"}
    out["schema_version"] = 2
    config = dict(data.get("config") or {})
    urls = config.pop("site_urls", None)
    if isinstance(urls, dict):
        out["site_urls"] = {str(k): str(v) for k, v in urls.items()}
    today = config.pop("today", None)
    if isinstance(today, str) and isinstance(urls, dict):
        out["sandbox"] = {"suite": config.get("suite") or default_suite(), "today": today,
                          "seed": int(config.get("seed") or data.get("seed") or 0)}
    elif isinstance(today, str):
        config["today"] = today
    if isinstance(config.get("imported_from"), str):
        out["source"] = config.pop("imported_from")
    # An Eval run's record: its kind, scorers and grouping keys go with its results.
    results = {k: config.pop(k) for k in ("summary", "grouped", "kind", "scorers", "group_by")
               if k in config}
    if results:
        out["results"] = results
    if config.get("agent"):
        # Settings of an older shape are dropped: the run still opens, without them.
        with contextlib.suppress(ValidationError):
            out["settings"] = RunConfig.model_validate(config).model_dump(mode="json")
    return out
