"""One HTTP exchange with a chat-completions endpoint, classified for the retry loop:
a `Reply`, or a `Failure` that says whether trying again can help."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from webtraj.llm.retry import parse_retry_after, retryable_status
from webtraj.model.redact import Redactor


@dataclass(slots=True)
class Failure:
    reason: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


@dataclass(slots=True)
class Reply:
    text: str
    finish_reason: str | None
    response_model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


async def post_chat(http: httpx.AsyncClient, limiter: asyncio.Semaphore, url: str,
                    body: bytes, headers: dict[str, str], timeout: float,
                    redactor: Redactor) -> Reply | Failure:
    try:
        async with limiter:
            # httpx's timeouts are per socket operation; this bounds the whole exchange.
            async with asyncio.timeout(timeout):
                resp = await http.post(url, content=body, headers=headers)
    except (TimeoutError, httpx.TimeoutException):
        return Failure(f"no complete reply within {timeout:g}s", retryable=True)
    except httpx.TransportError as exc:
        detail = redactor.text(str(exc))[:200] or type(exc).__name__
        return Failure(f"connection error ({type(exc).__name__}: {detail})", retryable=True)
    status = resp.status_code
    if not 200 <= status < 300:
        return Failure(f"HTTP {status}: {error_message(resp, redactor)}",
                       retryable=retryable_status(status), status=status,
                       retry_after=parse_retry_after(resp.headers))
    return read_reply(resp)


def error_message(resp: httpx.Response, redactor: Redactor) -> str:
    """The server's own words (OpenAI-style `error.message`), redacted and shortened: some
    gateways echo the key they rejected."""
    msg: Any = None
    try:
        data = orjson.loads(resp.content)
        err = data.get("error") if isinstance(data, dict) else None
        msg = err.get("message") if isinstance(err, dict) else err or data.get("detail")
    except (orjson.JSONDecodeError, AttributeError):
        pass
    if not msg:
        msg = resp.text.strip() or resp.reason_phrase
    return redactor.text(str(msg))[:300]


def read_reply(resp: httpx.Response) -> Reply | Failure:
    try:
        data = orjson.loads(resp.content)
    except orjson.JSONDecodeError:
        return Failure("malformed reply: the body is not JSON", retryable=True,
                       status=resp.status_code)
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return Failure("malformed reply: no choices", retryable=True, status=resp.status_code)
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if content is None:
        content = message.get("refusal") or ""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(text=str(content), finish_reason=choice.get("finish_reason"),
                 response_model=data.get("model"),
                 prompt_tokens=_int(usage.get("prompt_tokens")),
                 completion_tokens=_int(usage.get("completion_tokens")))


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None
