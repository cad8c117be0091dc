"""Evaluator configs, shaped like WebArena-Verified's `eval` entries; unknown keys fail."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TaskType(StrEnum):
    RETRIEVE = "RETRIEVE"
    MUTATE = "MUTATE"
    NAVIGATE = "NAVIGATE"


class ResponseStatus(StrEnum):
    SUCCESS = "SUCCESS"
    ACTION_NOT_ALLOWED_ERROR = "ACTION_NOT_ALLOWED_ERROR"
    PERMISSION_DENIED_ERROR = "PERMISSION_DENIED_ERROR"
    NOT_FOUND_ERROR = "NOT_FOUND_ERROR"
    DATA_VALIDATION_ERROR = "DATA_VALIDATION_ERROR"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"


class ExpectedResponse(BaseModel):
    """The expected agent response; list values in `retrieved_data` may be alternatives."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    task_type: TaskType = Field(validation_alias=AliasChoices("task_type", "performed_operation"))
    status: ResponseStatus
    retrieved_data: list[Any] | None = None
    error_details: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _upper(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for key in ("task_type", "performed_operation", "status"):
                if isinstance(data.get(key), str):
                    data[key] = data[key].upper()
        return data


class AgentResponseConfig(_Strict):
    evaluator: Literal["AgentResponseEvaluator"] = "AgentResponseEvaluator"
    ordered: bool = False
    results_schema: dict[str, Any]
    expected: ExpectedResponse


class ExpectedEvent(_Strict):
    """What the matching request must look like. `url` is a string or alternatives."""

    url: str | list[str]
    headers: dict[str, Any] | None = None
    query_params: dict[str, Any] | None = None
    post_data: dict[str, Any] | None = None
    response_content: dict[str, Any] | None = None
    response_status: int = 200
    http_method: str = "GET"
    response_cookies: dict[str, Any] | None = None

    @field_validator("url")
    @classmethod
    def _non_empty(cls, v: str | list[str]) -> str | list[str]:
        if (isinstance(v, str) and not v) or (isinstance(v, list) and not all(v)):
            raise ValueError("url must not be empty")
        return v


class NetworkEventConfig(_Strict):
    evaluator: Literal["NetworkEventEvaluator"] = "NetworkEventEvaluator"
    last_event_only: bool = True
    ignored_query_params: tuple[str, ...] | None = None
    ignored_query_params_patterns: tuple[str, ...] | None = None
    decode_base64_query: bool = False
    query_params_schema: dict[str, Any] | None = None
    post_data_schema: dict[str, Any] | None = None
    ignored_post_data_params_patterns: tuple[str, ...] | None = None
    should_not_exist: bool = False
    expected: ExpectedEvent
