"""NetworkEventEvaluator: did the agent send the expected request (or not send it)?

Candidate events are the trace's non-static requests with the expected method and URL
path (and referer path, when both sides have one). A navigate task expecting a GET is
judged on the last navigation of the whole trace instead. With `last_event_only` the last
candidate is compared in full (URL with query, method, status, headers, body, response);
otherwise any candidate may match.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from webtraj.formats.har_reader import body_not_recorded
from webtraj.model.redact import REDACTED
from webtraj.suites.webarena_verified.evaluate.compare import compare
from webtraj.suites.webarena_verified.evaluate.config import NetworkEventConfig
from webtraj.suites.webarena_verified.evaluate.context import TaskContext
from webtraj.suites.webarena_verified.evaluate.events import NetworkEvent
from webtraj.suites.webarena_verified.evaluate.jsonpath import extract, is_path_key
from webtraj.suites.webarena_verified.evaluate.result import Assertion, Status, Verdict
from webtraj.suites.webarena_verified.evaluate.schema import normalize, single
from webtraj.suites.webarena_verified.evaluate.urls import Url

NAME = "NetworkEventEvaluator"


class NetworkEventEvaluator:
    name = NAME

    def __init__(self, config: NetworkEventConfig) -> None:
        self.config = config

    def evaluate(self, ctx: TaskContext) -> Verdict:
        cfg = self.config
        selected: list[NetworkEvent] = []
        try:
            matches = self._candidates(ctx)
            selected = matches[-1:] if cfg.last_event_only else matches
            actual_raw = [self._extract(ev) for ev in selected]
            missing = [m for a in actual_raw if (m := a.pop("_missing", None))]
            expected = self._normalize(ctx, cfg.expected.model_dump(exclude_none=True), True)
            post_keys = _keys(expected.get("post_data"))
            content_keys = _keys(expected.get("response_content"))
            actual = [self._normalize(ctx, a, False, post_keys, content_keys)
                      for a in actual_raw] or None
            _not_redacted(actual, expected)
            assertions = self._compare(actual, expected)
            # A body that was never recorded decides nothing: a match among the bodies that
            # were kept still passes, anything else cannot be decided.
            if missing and (cfg.should_not_exist
                            or not all(a.status is Status.SUCCESS for a in assertions)):
                raise BodyNotRecorded("; ".join(missing))
        except (RedactedValue, BodyNotRecorded) as exc:
            return Verdict.failed(NAME, f"task {ctx.task_id}: {exc}", actual=_summary(selected))
        except Exception as exc:  # noqa: BLE001 - any failure is this evaluator's error
            return Verdict.failed(NAME, f"task {ctx.task_id}: {type(exc).__name__}: {exc}",
                                  actual=_summary(selected))
        return Verdict.from_assertions(NAME, assertions, actual=_summary(selected))

    # -- step 1: which events -------------------------------------------------------
    def _url(self, ctx: TaskContext, url: Any, strict: bool, query: Any = None) -> Any:
        cfg = self.config
        typed = (partial(normalize, schema=cfg.query_params_schema, strict=strict)
                 if cfg.query_params_schema else None)
        return single(
            url, "url", strict,
            query_params=query,
            decode_base64_query=cfg.decode_base64_query,
            ignored_query_parameters=cfg.ignored_query_params,
            ignored_query_parameters_patterns=cfg.ignored_query_params_patterns,
            render_url_fct=ctx.render(strict),
            derender_url_fct=ctx.derender(strict),
            normalize_query_params_fct=typed,
        )

    def _candidates(self, ctx: TaskContext) -> list[NetworkEvent]:
        cfg, exp = self.config, self.config.expected
        events = ctx.evaluation_events
        if not events:
            return []
        if ctx.is_navigate and exp.http_method == "GET":
            navigations = [e for e in events if e.is_navigation]
            return navigations[-1:]
        want_url = self._url(ctx, exp.url, True)
        want_ref = (self._url(ctx, exp.headers["referer"], True)
                    if exp.headers and "referer" in exp.headers else None)
        method = exp.http_method.lower()
        seen: dict[str, Any] = {}
        out = []
        for ev in events:
            if cfg.expected.http_method and ev.method.lower() != method:
                continue
            got = seen.get(ev.url)
            if got is None:
                got = seen[ev.url] = self._url(ctx, ev.url, False)
            if not isinstance(got, Url):
                raise ValueError(f"event {ev.index}: cannot read URL {ev.url!r}")
            if not want_url.same_path(got):
                continue
            if (want_ref is not None and ev.referer
                    and not want_ref.same_path(self._url(ctx, ev.referer, False))):
                continue
            out.append(ev)
        return out

    def _extract(self, ev: NetworkEvent) -> dict[str, Any]:
        exp = self.config.expected
        raw: dict[str, Any] = {"url": ev.url, "response_status": ev.status,
                               "http_method": ev.method}
        if not (exp.headers or exp.post_data or exp.response_content or exp.response_cookies):
            return raw
        d = ev.details()
        if exp.headers:
            got = {n: d.headers[n.lower()] for n in exp.headers if n.lower() in d.headers}
            if got:
                raw["headers"] = got
        if exp.post_data:
            raw["post_data"] = d.post_data
        if exp.response_content:
            missing = body_not_recorded(ev.entry)
            if missing is not None:
                raw["_missing"] = f"response body of {ev.url} was not recorded: {missing}"
            raw["response_content"] = d.response_content
        if exp.response_cookies:
            got = {n: d.response_cookies[n] for n in exp.response_cookies
                   if n in d.response_cookies}
            if got:
                raw["response_cookies"] = got
        return {k: v for k, v in raw.items() if v is not None}

    # -- step 2: normalize both sides ---------------------------------------------------
    def _normalize(self, ctx: TaskContext, spec: dict[str, Any], strict: bool,
                   post_keys: tuple[str, ...] | None = None,
                   content_keys: tuple[str, ...] | None = None) -> dict[str, Any]:
        out = dict(spec)
        out["url"] = self._url(ctx, spec["url"], strict, spec.get("query_params"))
        out.pop("query_params", None)
        if spec.get("headers") is not None:
            out["headers"] = {name: self._header(ctx, name, value, strict)
                              for name, value in spec["headers"].items()}
        out["post_data"] = self._post_data(ctx, spec.get("post_data"), strict, post_keys)
        content = spec.get("response_content")
        if content and content_keys:
            content = {**{k: content[k] for k in content_keys
                          if not is_path_key(k) and k in content},
                       **{k: extract(content, k) for k in content_keys if is_path_key(k)}}
        out["response_content"] = content or None
        cookies = spec.get("response_cookies")
        out["response_cookies"] = ({n: single(v, "string", strict) for n, v in cookies.items()}
                                   if cookies else None)
        return out

    def _header(self, ctx: TaskContext, name: str, value: Any, strict: bool) -> Any:
        if name in ("redirect_url", "referer") and value:
            return self._url(ctx, value, strict)
        try:
            return single(ctx.site_urls.derender(value, sites=ctx.sites, strict=False),
                          "string", strict)
        except Exception:  # noqa: BLE001 - the reference keeps the raw value
            return value

    def _post_data(self, ctx: TaskContext, data: Any, strict: bool,
                   keys: tuple[str, ...] | None) -> Any:
        cfg = self.config
        if not data:
            return None
        if cfg.ignored_post_data_params_patterns:
            data = {k: v for k, v in data.items()
                    if not _matches_any(cfg.ignored_post_data_params_patterns, k)}
        if keys:
            flat = {k: data.get(k) for k in keys if not is_path_key(k)}
            flat.update({k: extract(data, k) for k in keys if is_path_key(k)})
            data = flat
        if not data:
            return data
        return normalize(data, cfg.post_data_schema or {}, strict,
                         derender_url_fct=ctx.derender(strict))

    # -- step 3: compare ----------------------------------------------------------------
    def _compare(self, actual: list[dict[str, Any]] | None,
                 expected: dict[str, Any]) -> list[Assertion]:
        if self.config.should_not_exist:
            if not actual:
                return []
            return [Assertion(name="unexpected_navigation_event", messages=(
                f"found {len(actual)} matching event(s) where none should exist "
                "(should_not_exist)",))]
        if not actual:
            return [Assertion(name="missing_navigation_event", messages=(
                "no network event matches the expected method and URL",))]
        details: list[Assertion] = []
        for event in actual:
            details = compare(event, expected, path="network_event", ignore_extra_keys=True)
            if not details:
                return []
        msgs = [f"checked {len(actual)} event(s); none matched all expected fields"]
        msgs += [f"{a.name}: {m}" for a in details for m in a.messages]
        return [Assertion(name="missing_navigation_event", messages=tuple(msgs))]


class BodyNotRecorded(ValueError):
    """The recorder wanted a response body the config compares but could not read it (the
    page went away first, the browser died, it was over the size bound): cannot decide."""


class RedactedValue(ValueError):
    """The trace holds a redacted credential where the config compares the value."""


def _not_redacted(actual: list[dict[str, Any]] | None, expected: dict[str, Any]) -> None:
    """A stored run never holds credentials, so a check on one cannot be decided from it:
    unscored with the reason, never a score computed against "[REDACTED]". Only the parts
    the config compares count (normalized: ignored query parameters are gone)."""
    for event in actual or ():
        for key, value in event.items():
            if expected.get(key) is not None and _has_redacted(value):
                raise RedactedValue(
                    f"cannot decide: the request's {key} holds a value that was redacted "
                    "when the trace was stored in the run (credentials never reach a run); "
                    "score the original logs with `webtraj eval webarena-verified`")


_MARK = REDACTED.lower()  # normalization lower-cases text


def _has_redacted(value: Any) -> bool:
    if isinstance(value, str):
        return _MARK in value.lower()
    if isinstance(value, dict):
        return any(_has_redacted(k) or _has_redacted(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_has_redacted(v) for v in value)
    if value is None or isinstance(value, (int, float, bool)):
        return False
    return _MARK in str(value).lower()  # a parsed URL or normalized text


def _keys(d: Any) -> tuple[str, ...] | None:
    return tuple(k.strip() for k in d) if d else None


def _matches_any(patterns: tuple[str, ...], name: str) -> bool:
    for p in patterns:
        try:
            if re.search(p, name):
                return True
        except re.error:
            continue
    return False


def _summary(events: list[NetworkEvent]) -> list[dict[str, Any]] | None:
    if not events:
        return None
    return [{"entry": e.index, "method": e.method, "url": e.url, "status": e.status}
            for e in events[-5:]]
