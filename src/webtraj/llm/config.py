"""The user's config file (TOML): model profiles, prices, cache location.

    [llm]
    default = "local"                      # profile used when no --llm is given
    cache = "~/.cache/webtraj/llm.sqlite"

    [llm.profiles.local]
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen2.5-7B-Instruct"
    temperature = 0
    api_key_env = "VLLM_API_KEY"           # never the key itself

    [llm.prices."gpt-4o-mini"]             # USD per million tokens
    prompt = 0.15
    completion = 0.60
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, JsonValue, ValidationError

from webtraj.llm.usage import Price, PriceTable
from webtraj.model.base import FrozenModel
from webtraj.model.errors import InputError, from_validation_error
from webtraj.runtime.user_dirs import user_path

ENV_CONFIG = "WEBTRAJ_CONFIG"
ENV_CACHE = "WEBTRAJ_LLM_CACHE"


class LLMConfig(FrozenModel):
    path: str | None = None
    default: str | None = None
    cache: str | None = None
    profiles: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)
    prices: dict[str, Price] = Field(default_factory=dict)

    def price_table(self) -> PriceTable | None:
        return PriceTable(prices=self.prices) if self.prices else None


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    return user_path("config", "config.toml", override=ENV_CONFIG, environ=environ)


def load_config(path: str | Path | None = None, *,
                environ: Mapping[str, str] | None = None) -> LLMConfig:
    """Read the `[llm]` table; a missing default file is an empty config, a missing file the
    user named explicitly is an error."""
    env = os.environ if environ is None else environ
    explicit = path is not None or bool(env.get(ENV_CONFIG))
    p = Path(path).expanduser() if path is not None else default_config_path(env)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if explicit:
            raise InputError("config file not found", file=p) from None
        return LLMConfig()
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read config: {exc}", file=p) from None
    section: Any = data.get("llm", {})
    if not isinstance(section, dict):
        raise InputError("[llm] must be a table", file=p, field="llm")
    try:
        return LLMConfig.model_validate({**section, "path": str(p)})
    except ValidationError as exc:
        raise from_validation_error(exc, file=p) from None


def default_cache_path(config: LLMConfig | None = None,
                       environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get(ENV_CACHE):
        return Path(env[ENV_CACHE]).expanduser()
    if config is not None and config.cache:
        return Path(config.cache).expanduser()
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else (
        Path.home() / ".cache")
    return base / "webtraj" / "llm-cache.sqlite"
