"""URLs compared the WebArena-Verified way.

A URL becomes a base (scheme/host lower-cased, default port dropped, site URL replaced by
its placeholder, path kept with `;params` and `#fragment`) plus query parameters (decoded,
lower-cased, optionally typed by a schema, optionally read from base64 path segments).
Bases compare case-insensitively ignoring a trailing slash, or by `^...$` regex
(case-sensitive); query parameters compare on their first value, and an extra parameter
on either side fails unless it is ignored.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse, urlunparse

from url_normalize import url_normalize

from webtraj.suites.webarena_verified.evaluate.text import is_pattern
from webtraj.suites.webarena_verified.evaluate.values import Value

_B64_SEGMENT = re.compile(r"^[A-Za-z0-9_-]{4,}={0,2}$")
Query = Mapping[str, Any]


def split_base64_query(path: str) -> tuple[str, list[str]]:
    """Pull `key=value` query strings out of base64 path segments (Magento report filters)."""
    if not path:
        return path, []
    segments = path.split("/")
    found: list[str] = []
    for i, seg in enumerate(segments):
        if not seg or not _B64_SEGMENT.match(seg):
            continue
        try:
            text = base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4)).decode("utf-8")
        except Exception:  # noqa: BLE001 - not base64: an ordinary segment
            continue
        if "=" not in text:
            continue
        query = unquote(text).strip()
        if query:
            found.append(query.lstrip("?&"))
            segments[i] = ""
    kept = [s for s in segments if s]
    if not kept:
        return ("/" if path.startswith("/") else ""), found
    out = "/".join(kept)
    if path.startswith("/"):
        out = "/" + out
    if path.endswith("/") and not out.endswith("/"):
        out += "/"
    return out, found


def parse_query(query: str) -> dict[str, tuple[str, ...]]:
    if not query:
        return {}
    return {unquote(k): tuple(sorted(unquote(v) for v in vs))
            for k, vs in parse_qs(query, keep_blank_values=True).items()}


@dataclass(frozen=True, eq=False)
class UrlParts:
    base: str
    query: Query = field(default_factory=dict)
    is_regex: bool = False

    def __str__(self) -> str:
        q = "&".join(f"{k}={v}" for k, vs in sorted(self.query.items()) for v in vs)
        p = urlparse(self.base)
        return urlunparse((p.scheme, p.netloc, p.path, "", q, p.fragment))

    def same_base(self, other: UrlParts, render: Callable[[str], str] | None) -> bool:
        def rendered(u: str) -> str:
            return render(u) if render and u.startswith("__") else u

        for pat, target in ((self, other), (other, self)):
            if not pat.is_regex:
                continue
            rx = pat.base
            rx = f"^{rendered(rx[1:-1])}$" if is_pattern(rx) else rendered(rx)
            try:
                if re.match(rx, rendered(target.base)):
                    return True
            except re.error as exc:
                raise ValueError(f"invalid URL pattern {pat.base!r}: {exc}") from exc
        if not self.is_regex and not other.is_regex:
            return self.base.lower().rstrip("/") == other.base.lower().rstrip("/")
        return False

    def same_query(self, other: UrlParts) -> bool:
        """`self` is the expected side: its values may be `^...$` patterns."""
        for key in set(self.query) | set(other.query):
            mine = _first(self.query.get(key, ()))
            theirs = _first(other.query.get(key, ()))
            regex = mine.is_regexp if isinstance(mine, Value) else is_pattern(mine)
            if regex:
                try:
                    if not re.match(str(mine), str(theirs)):
                        return False
                except re.error as exc:
                    raise ValueError(f"invalid pattern for query parameter {key!r}") from exc
            elif ("" if mine is None or mine == "" else mine) != (
                    "" if theirs is None or theirs == "" else theirs):
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {"base_url": self.base, "query_params": {
            k: [x.to_json() if isinstance(x, Value) else x for x in v] if isinstance(v, tuple)
            else str(v) for k, v in self.query.items()}}


def _first(values: Any) -> Any:
    if not values:
        return ""
    v = values[0]
    return "" if v is None else v


class Url(Value):
    type_name = "url"

    def __init__(
        self,
        raw: Any,
        query_params: Query | None = None,
        decode_base64_query: bool = False,
        ignored_query_parameters: tuple[str, ...] | None = None,
        ignored_query_parameters_patterns: tuple[str, ...] | None = None,
        render_url_fct: Callable[[str], str] | None = None,
        derender_url_fct: Callable[..., str] | None = None,
        normalize_query_params_fct: Callable[[Any], Any] | None = None,
        **kw: Any,
    ) -> None:
        self._given_query = query_params
        self._base64 = decode_base64_query
        self._ignored = set(ignored_query_parameters or ())
        self._ignored_patterns = tuple(ignored_query_parameters_patterns or ())
        self.render = render_url_fct
        self._derender_url = derender_url_fct or (lambda u: u)
        self._typed_query = normalize_query_params_fct
        super().__init__(raw, derender_url_fct=self._derender_url, **kw)

    def _prepare(self, s: str) -> str:
        return s.strip()

    def _ignored_param(self, name: str) -> bool:
        if name in self._ignored:
            return True
        for pat in self._ignored_patterns:
            try:
                if re.search(pat, name, re.IGNORECASE):
                    return True
            except re.error:
                continue
        return False

    def _normalize_query(self, query: Query) -> Query:
        if self._ignored or self._ignored_patterns:
            query = {k: v for k, v in query.items() if not self._ignored_param(k)}
        if query:
            query = {k: tuple(sorted(s.lower().strip() if isinstance(s, str) else s for s in vs))
                     for k, vs in query.items()}
        if self._typed_query is not None:
            query = self._typed_query(query)
        return dict(query or {})

    def _convert(self, value: Any) -> UrlParts:
        if not value:
            raise ValueError("empty URL")
        if is_pattern(value):
            query = {} if self._given_query is None else self._normalize_query(self._given_query)
            return UrlParts(value.rstrip("/"), query, is_regex=True)
        value = value.rstrip("/")
        if value.startswith("__") and self.render is not None:
            value = self.render(value)
        if _is_ssh(value):
            return UrlParts(_ssh_base(value), {})
        normalized = url_normalize(value)
        if normalized is None:
            raise ValueError(f"invalid URL: {value!r}")
        parsed = urlparse(self._derender_url(normalized))
        scheme, netloc = parsed.scheme.lower(), parsed.netloc.lower()
        path = parsed.path or ""
        if parsed.params:
            path = f"{path};{parsed.params}"
        if netloc:
            try:
                default = (scheme, parsed.port) in (("http", 80), ("https", 443))
            except ValueError:
                default = False
            if default and parsed.hostname:
                netloc = parsed.hostname.lower()
        if self._given_query is not None:
            query: Query = self._given_query
        else:
            parts: list[str] = []
            if self._base64:
                path, decoded = split_base64_query(path)
                parts.extend(decoded)
            if parsed.query:
                parts.append(parsed.query.strip())
            query = parse_query("&".join(parts))
        base = urlunparse((scheme, netloc, path, "", "", parsed.fragment or ""))
        return UrlParts(base, self._normalize_query(query))

    def same_path(self, other: Url | str) -> bool:
        """Bases only (query ignored): used to pick candidate events."""
        others = (other.alternatives if isinstance(other, Url)
                  else (UrlParts(other.rstrip("/"), {}),))
        return any(a.same_base(b, self.render) for a in self.alternatives for b in others)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Url):
            return any(a.same_base(b, self.render) and a.same_query(b)
                       for a in self.alternatives for b in other.alternatives)
        if isinstance(other, str):
            return any(str(a) == other for a in self.alternatives)
        return False

    def __hash__(self) -> int:
        return hash(str(self.normalized))

    def to_json(self) -> Any:
        return self.normalized.to_json()


def _is_ssh(url: str) -> bool:
    low = url.lower()
    return low.startswith("ssh://") or (low.startswith("git@") and ":" in url and "://" not in url)


def _ssh_base(url: str) -> str:
    """Any SSH clone URL becomes `user@__SSH_HOST__:path` (host and port dropped)."""
    if url.lower().startswith("ssh://"):
        p = urlparse(url)
        user = p.netloc.split("@")[0].lower() if "@" in p.netloc else "git"
        return f"{user}@__SSH_HOST__:{p.path.lstrip('/').lower()}"
    user, rest = url.split("@", 1)
    path = rest[rest.index(":") + 1:]
    return f"{user.lower()}@__SSH_HOST__:{path.lstrip('/').lower()}"
