"""Errors of the LLM layer. A call that cannot be completed raises; it never turns into a
score, so evaluators can report *unscored* with the message."""

from __future__ import annotations

from webtraj.model.errors import InfrastructureError


class LLMError(RuntimeError):
    """Base class: anything the LLM layer could not do."""


class LLMCallError(LLMError, InfrastructureError):
    """A chat call that failed for good: a non-retryable answer, or retries used up. An
    agent cannot act without its model, so its episode ends as an error (not a failure)."""

    def __init__(
        self,
        reason: str,
        *,
        endpoint: str,
        model: str,
        attempts: int,
        status: int | None = None,
        retryable: bool = False,
    ) -> None:
        self.reason = reason
        self.endpoint = endpoint
        self.model = model
        self.attempts = attempts
        self.status = status
        self.retryable = retryable
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        super().__init__(f"LLM call to {endpoint} (model {model}) failed after {tries}: {reason}")


class RetryBudgetExhausted(LLMCallError):
    """The client-wide retry budget is spent: the endpoint looks down, stop hammering it."""
