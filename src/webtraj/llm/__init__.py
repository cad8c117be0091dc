"""LLM layer: every model call in webtraj goes through here (agents, judges, task generation).

Nothing else in webtraj talks HTTP to a model. See `LLMClient` for the call path and
`webtraj.testing.ScriptedLLMServer` for an offline test double."""

from webtraj.llm.cache import CacheStats, LLMCache, cache_key
from webtraj.llm.client import LLMClient
from webtraj.llm.config import LLMConfig, default_cache_path, load_config
from webtraj.llm.errors import LLMCallError, LLMError, RetryBudgetExhausted
from webtraj.llm.images import data_url, image_part, image_size
from webtraj.llm.messages import ImagePart, Message, TextPart, assistant, system, user
from webtraj.llm.results import ChatRequest, Completion, Structured
from webtraj.llm.spec import GenerationParams, ModelSpec, resolve_spec
from webtraj.llm.structured import ParseFailure, json_candidates, parse_reply
from webtraj.llm.tokens import TrimmedTree, estimate_messages_tokens, estimate_tokens, trim_tree
from webtraj.llm.usage import ModelUsage, Price, PriceTable, Usage, merge_run_usage, usage_scope

__all__ = [
    "CacheStats", "ChatRequest", "Completion", "GenerationParams", "ImagePart", "LLMCache",
    "LLMCallError", "LLMClient", "LLMConfig", "LLMError", "Message", "ModelSpec",
    "ModelUsage", "ParseFailure", "Price", "PriceTable", "RetryBudgetExhausted", "Structured",
    "TextPart", "TrimmedTree", "Usage", "assistant", "cache_key", "data_url",
    "default_cache_path", "estimate_messages_tokens", "estimate_tokens", "image_part",
    "image_size", "json_candidates", "load_config", "merge_run_usage", "parse_reply",
    "resolve_spec", "system", "trim_tree", "usage_scope", "user",
]
