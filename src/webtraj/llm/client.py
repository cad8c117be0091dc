"""Async client for OpenAI-compatible chat-completions endpoints.

Every call goes through: the cache (by content key), single-flight (an identical call already
in flight is awaited, not repeated), the endpoint's concurrency limit, a per-attempt timeout
that also bounds slow bodies, and bounded retries with backoff on 429/5xx/timeouts/connection
errors/malformed replies. A call either returns a `Completion` or raises `LLMCallError` after
a bounded time: attempts x timeout + backoff, never a hang."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import orjson

from webtraj import __version__
from webtraj.llm.cache import CachedReply, CacheError, LLMCache, cache_key
from webtraj.llm.errors import LLMCallError, LLMError, RetryBudgetExhausted
from webtraj.llm.limits import endpoint_limiter
from webtraj.llm.messages import MessageLike, as_messages, assistant, user, wire
from webtraj.llm.results import ChatRequest, Completion, Structured
from webtraj.llm.retry import RetryBudget, backoff_delay
from webtraj.llm.spec import ModelSpec
from webtraj.llm.structured import ParseFailure, parse_reply, reask_prompt
from webtraj.llm.tokens import image_tokens
from webtraj.llm.transport import Failure, Reply, post_chat
from webtraj.llm.usage import PriceTable, Usage, UsageTracker
from webtraj.model.redact import Redactor

log = logging.getLogger("webtraj.llm")
R = TypeVar("R")
Messages = str | Sequence[MessageLike]
RequestLike = ChatRequest | Messages


@dataclass
class _LoopState:
    http: httpx.AsyncClient | None = None
    inflight: dict[str, asyncio.Future[Completion]] = field(default_factory=dict)


class LLMClient:
    def __init__(
        self,
        spec: ModelSpec,
        *,
        cache: LLMCache | None = None,
        prices: PriceTable | None = None,
        usage: UsageTracker | None = None,
    ) -> None:
        self.spec = spec
        self.cache = cache
        self.tracker = usage or UsageTracker(prices)
        self._budget = RetryBudget(spec.retry_budget)
        self._endpoint = spec.endpoint  # parsed once: it is part of every cache key
        # Connections and in-flight calls belong to one event loop; a client used from
        # several threads (each with its own loop) keeps one set per loop.
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary())
        self._loops_lock = threading.Lock()
        key = spec.api_key.get_secret_value() if spec.api_key else None
        self._redactor = Redactor([key] if key else [])
        self._headers = {"content-type": "application/json", "accept": "application/json",
                         "user-agent": f"webtraj/{__version__}"}
        if key:
            self._headers["authorization"] = f"Bearer {key}"

    @classmethod
    def from_cli(cls, llm: str | None, *, no_cache: bool = False,
                 cache_path: str | Path | None = None, **overrides: Any) -> LLMClient:
        """A client from `--llm`/env/config, with the configured cache and price table."""
        from webtraj.llm.config import default_cache_path, load_config
        from webtraj.llm.spec import resolve_spec

        cfg = load_config()
        spec = resolve_spec(llm, config=cfg, **overrides)
        cache = None if no_cache else LLMCache(cache_path or default_cache_path(cfg))
        return cls(spec, cache=cache, prices=cfg.price_table())

    # --- lifecycle ----------------------------------------------------------------------
    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        with self._loops_lock:
            state = self._loops.get(loop)
            if state is None:
                state = self._loops[loop] = _LoopState()
            return state

    def _client(self) -> httpx.AsyncClient:
        state = self._state()
        if state.http is None:
            n = self.spec.concurrency
            state.http = httpx.AsyncClient(
                timeout=httpx.Timeout(self.spec.timeout, connect=min(self.spec.timeout, 30.0)),
                limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
            )
        return state.http

    async def aclose(self) -> None:
        """Close this event loop's connections."""
        state = self._state()
        http, state.http = state.http, None
        if http is not None:
            await http.aclose()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def usage(self) -> Usage:
        return self.tracker.snapshot()

    def key_for(self, messages: Messages, *, sample: int = 0, **params: Any) -> str:
        """The cache key a call would use (for tests and cache tooling)."""
        return self._prepare(as_messages(messages), sample, params)[1]

    def _prepare(self, msgs: Sequence[Any], sample: int,
                 params: dict[str, Any]) -> tuple[dict[str, Any], str]:
        body_params = self.spec.params.merged(**params).body()
        if sample and "seed" in body_params:
            body_params["seed"] = int(body_params["seed"]) + sample  # distinct samples
        key = cache_key(self._endpoint, self.spec.model, msgs, body_params, sample)
        return body_params, key

    # --- calls --------------------------------------------------------------------------
    async def chat(self, messages: Messages, *, sample: int = 0, use_cache: bool = True,
                   **params: Any) -> Completion:
        """One completion. `sample` numbers independent samples of the same prompt (each is
        cached separately); `params` override the spec's generation parameters."""
        msgs = as_messages(messages)
        body_params, key = self._prepare(msgs, sample, params)
        model = self.spec.model
        self.tracker.add(model, calls=1)
        cache = self.cache if use_cache else None
        fut: asyncio.Future[Completion] | None = None
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                self.tracker.add(model, cache_hits=1)
                return _from_cache(hit, model, key, sample)
            inflight = self._state().inflight
            shared = await self._join_inflight(inflight, key)
            if shared is not None:
                return shared
            fut = asyncio.get_running_loop().create_future()
            fut.add_done_callback(_consume)
            inflight[key] = fut
        try:
            comp = await self._fetch(msgs, body_params, key, sample)
            if cache is not None:
                self._store(cache, key, comp)
        except asyncio.CancelledError:
            if fut is not None and not fut.done():
                fut.cancel()
            raise
        except BaseException as exc:
            if fut is not None and not fut.done():
                fut.set_exception(exc)
            raise
        else:
            if fut is not None and not fut.done():
                fut.set_result(comp)
            return comp
        finally:
            if fut is not None and inflight.get(key) is fut:
                del inflight[key]

    def _store(self, cache: LLMCache, key: str, comp: Completion) -> None:
        try:
            cache.put(key, comp.model, CachedReply(
                text=comp.text, finish_reason=comp.finish_reason,
                response_model=comp.response_model, prompt_tokens=comp.prompt_tokens,
                completion_tokens=comp.completion_tokens))
        except CacheError as exc:  # a paid reply is still a reply
            log.warning("could not write the LLM cache %s: %s", cache.path, exc)

    async def _join_inflight(self, inflight: dict[str, asyncio.Future[Completion]],
                             key: str) -> Completion | None:
        while (pending := inflight.get(key)) is not None:
            try:
                comp = await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if pending.cancelled() and not (task and task.cancelling()):
                    continue  # the owner was cancelled, not us: try again ourselves
                raise
            except LLMError:
                self.tracker.add(self.spec.model, failures=1)
                raise
            self.tracker.add(self.spec.model, cache_hits=1)
            return comp.model_copy(update={"cached": True, "attempts": 0, "latency_s": 0.0})
        return None

    async def _fetch(self, msgs: Sequence[Any], body_params: dict[str, Any], key: str,
                     sample: int) -> Completion:
        spec = self.spec
        body = orjson.dumps({**body_params, "model": spec.model, "messages": wire(msgs)})
        http = self._client()
        limiter = endpoint_limiter(self._endpoint, spec.concurrency)
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            outcome = await post_chat(http, limiter, spec.chat_url, body, self._headers,
                                      spec.timeout, self._redactor)
            self.tracker.add(spec.model, http_requests=1)
            if isinstance(outcome, Reply):
                latency = time.monotonic() - started
                self._budget.earn()
                self.tracker.add(spec.model, prompt_tokens=outcome.prompt_tokens or 0,
                                 completion_tokens=outcome.completion_tokens or 0,
                                 latency_s=latency, image_tokens=image_tokens(msgs))
                return Completion(text=outcome.text, model=spec.model, key=key, sample=sample,
                                  finish_reason=outcome.finish_reason,
                                  response_model=outcome.response_model,
                                  prompt_tokens=outcome.prompt_tokens,
                                  completion_tokens=outcome.completion_tokens,
                                  attempts=attempt, latency_s=latency)
            if not outcome.retryable:
                raise self._give_up(outcome, attempt, "not retryable")
            if attempt > spec.max_retries:
                raise self._give_up(outcome, attempt, f"max_retries={spec.max_retries} reached")
            # A 429 that says when to come back is the server pacing us, not a failure.
            paced = outcome.status == 429 and outcome.retry_after is not None
            if not paced and not self._budget.spend():
                raise self._give_up(outcome, attempt, "retry budget exhausted",
                                    cls=RetryBudgetExhausted)
            delay = backoff_delay(attempt, base=spec.backoff_base, cap=spec.backoff_max,
                                  retry_after=outcome.retry_after,
                                  max_retry_after=spec.max_retry_after)
            self.tracker.add(spec.model, retries=1)
            log.info("LLM call to %s (model %s) attempt %d failed: %s; retrying in %.2fs",
                     spec.endpoint, spec.model, attempt, outcome.reason, delay)
            await asyncio.sleep(delay)

    def _give_up(self, f: Failure, attempts: int, why: str,
                 cls: type[LLMCallError] = LLMCallError) -> LLMCallError:
        self.tracker.add(self.spec.model, failures=1)
        return cls(f"{f.reason} ({why})", endpoint=self.spec.endpoint, model=self.spec.model,
                   attempts=attempts, status=f.status, retryable=f.retryable)

    # --- batches and structured output --------------------------------------------------
    async def chat_many(
        self,
        requests: Iterable[RequestLike],
        *,
        return_exceptions: bool = False,
        on_result: Callable[[int, Completion | LLMError], None] | None = None,
    ) -> list[Completion | LLMError]:
        """Run calls concurrently (bounded by the endpoint limit); results in request order.
        With `return_exceptions`, a failed call yields its `LLMError` in its slot instead of
        failing the batch."""
        reqs = [ChatRequest.of(r) for r in requests]

        async def one(i: int, r: ChatRequest) -> Completion | LLMError:
            res: Completion | LLMError
            try:
                res = await self.chat(r.messages, sample=r.sample, use_cache=r.use_cache,
                                      **r.params)
            except LLMError as exc:
                if not return_exceptions:
                    raise
                res = exc
            if on_result is not None:
                on_result(i, res)
            return res

        return await _map_ordered(one, reqs, self._workers(len(reqs)))

    async def structured(self, messages: Messages, schema: Any, *, reask: bool = True,
                         sample: int = 0, use_cache: bool = True,
                         **params: Any) -> Structured[Any]:
        """A reply parsed into `schema`; on failure, optionally one re-ask that shows the
        model its error. Still unparseable -> `Structured.failure` with the raw text."""
        msgs = as_messages(messages)
        comp = await self.chat(msgs, sample=sample, use_cache=use_cache, **params)
        parsed = parse_reply(comp.text, schema)
        if not isinstance(parsed, ParseFailure):
            return Structured(value=parsed, completion=comp)
        if not reask:
            return Structured(failure=parsed, completion=comp)
        follow = (*msgs, assistant(comp.text), user(reask_prompt(parsed)))
        comp2 = await self.chat(follow, sample=sample, use_cache=use_cache, **params)
        parsed2 = parse_reply(comp2.text, schema)
        if isinstance(parsed2, ParseFailure):
            return Structured(failure=parsed2.model_copy(update={"reasked": True}),
                              completion=comp2, reasked=True)
        return Structured(value=parsed2, completion=comp2, reasked=True)

    async def structured_many(self, requests: Iterable[RequestLike], schema: Any, *,
                              reask: bool = True,
                              return_exceptions: bool = False) -> list[Structured[Any] | LLMError]:
        reqs = [ChatRequest.of(r) for r in requests]

        async def one(_: int, r: ChatRequest) -> Structured[Any] | LLMError:
            try:
                return await self.structured(r.messages, schema, reask=reask, sample=r.sample,
                                             use_cache=r.use_cache, **r.params)
            except LLMError as exc:
                if not return_exceptions:
                    raise
                return exc

        return await _map_ordered(one, reqs, self._workers(len(reqs)))

    def _workers(self, n: int) -> int:
        # Enough to keep the endpoint busy while others read the cache, without one task
        # per request (a batch of 100k requests would hold 100k coroutines).
        return max(1, min(n, 4 * self.spec.concurrency))

    # --- synchronous entry points -------------------------------------------------------
    def run_sync(self, fn: Callable[[LLMClient], Awaitable[R]]) -> R:
        """Run `fn(client)` in a fresh event loop, closing connections afterwards."""
        async def go() -> R:
            try:
                return await fn(self)
            finally:
                await self.aclose()
        return asyncio.run(go())

    def chat_many_sync(self, requests: Iterable[RequestLike],
                       **kw: Any) -> list[Completion | LLMError]:
        reqs = list(requests)
        return self.run_sync(lambda c: c.chat_many(reqs, **kw))


async def _map_ordered(fn: Callable[[int, Any], Awaitable[R]], items: Sequence[Any],
                       workers: int) -> list[R]:
    """Apply `fn` with `workers` tasks; results in input order. If one raises, the others
    are cancelled (not left running) and the error propagates."""
    results: list[Any] = [None] * len(items)
    todo = iter(enumerate(items))

    async def worker() -> None:
        for i, item in todo:  # one shared iterator: each item is taken exactly once
            results[i] = await fn(i, item)

    tasks = [asyncio.ensure_future(worker()) for _ in range(min(workers, len(items)))]
    try:
        await asyncio.gather(*tasks)
    finally:
        pending = [t for t in tasks if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    return results


def _from_cache(hit: CachedReply, model: str, key: str, sample: int) -> Completion:
    return Completion(text=hit.text, model=model, key=key, sample=sample,
                      finish_reason=hit.finish_reason, response_model=hit.response_model,
                      prompt_tokens=hit.prompt_tokens, completion_tokens=hit.completion_tokens,
                      cached=True)


def _consume(fut: asyncio.Future[Any]) -> None:
    # Retrieve the exception so asyncio does not warn when no duplicate call was waiting.
    if not fut.cancelled():
        fut.exception()
