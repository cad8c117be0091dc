"""Redaction before anything reaches disk: credentials in headers, cookies, config keys, and the
values of secrets found in the environment, wherever they appear."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie",
                               "x-api-key", "api-key"})
# Config/JSON keys whose values are credentials.
_SENSITIVE_KEY = re.compile(
    r"(api[_-]?key|secret|password|passwd|(access|auth|bearer|refresh|session)[_-]?token|^token$"
    r"|authorization|^cookie$|credential)",
    re.IGNORECASE,
)
# Environment variables whose values must never be written.
_SECRET_ENV = re.compile(r"(API_KEY|_TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
# Credentials inside free text ("Authorization: Bearer abc", "Cookie: a=b").
_HEADER_LINE = re.compile(
    r"(?im)\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key)(\s*[:=]\s*)[^\r\n]+"
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}")
_MIN_SECRET_LEN = 6


def secrets_from_env(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= _MIN_SECRET_LEN]


class Redactor:
    """Walks JSON-like data and returns a redacted copy."""

    def __init__(self, secrets: Iterable[str] = (), *, include_env: bool = True) -> None:
        found = set(secrets_from_env() if include_env else ())
        found.update(s for s in secrets if s and len(s) >= _MIN_SECRET_LEN)
        # Longest first so a secret containing another is replaced whole.
        self.secrets = sorted(found, key=len, reverse=True)
        self._secret_re = (re.compile("|".join(re.escape(s) for s in self.secrets))
                           if self.secrets else None)

    def text(self, s: str) -> str:
        if self._secret_re is not None:
            s = self._secret_re.sub(REDACTED, s)
        if "uthoriz" in s or "ookie" in s or "api-key" in s.lower():
            s = _HEADER_LINE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, s)
        if "earer" in s or "asic" in s:
            s = _BEARER.sub(lambda m: m.group(1) + " " + REDACTED, s)
        return s

    def data(self, obj: Any, _key: str | None = None) -> Any:
        if isinstance(obj, dict):
            return self._mapping(obj)
        if isinstance(obj, list):
            if _key is not None and _key.lower() == "cookies":
                return [self._cookie(c) for c in obj]
            return [self.data(x) for x in obj]
        if isinstance(obj, str):
            return self.text(obj)
        return obj

    def _mapping(self, obj: dict) -> dict:
        name = obj.get("name")
        # HAR header / query entry: {"name": "Authorization", "value": "..."}
        if isinstance(name, str) and "value" in obj and name.lower() in SENSITIVE_HEADERS:
            return {**{k: self.data(v, k) for k, v in obj.items() if k != "value"},
                    "value": REDACTED}
        out = {}
        for k, v in obj.items():
            if isinstance(v, str) and isinstance(k, str) and v and (
                    k.lower() in SENSITIVE_HEADERS or _SENSITIVE_KEY.search(k)):
                out[k] = REDACTED
            else:
                out[k] = self.data(v, k if isinstance(k, str) else None)
        return out

    def _cookie(self, cookie: Any) -> Any:
        if isinstance(cookie, dict):
            return {k: (REDACTED if k == "value" else self.data(v)) for k, v in cookie.items()}
        return self.data(cookie)
