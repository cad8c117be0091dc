"""Redaction before anything reaches disk: credentials where they are credentials, and known
secret values in every encoding, never ordinary prose.

Redacted: credential-named headers, query and fragment parameters and form fields (HAR
entries, URLs anywhere in text, urlencoded, JSON and multipart bodies whatever their declared
MIME type), cookies and `Set-Cookie`, credential-named config keys, URL userinfo, JWT-shaped
values anywhere, `Authorization: <scheme> <token>`-style header lines quoted in text, and the
values of secrets found in the environment or given by the caller (see secret_forms.py).

A name is a credential's name by its parts, in any case and separator style (`api_key`,
`API-KEY`, `apiKey`, `X-Api-Key`, `id_token`, `IDToken`, `pass`, `passwd`, `pw`, `passwort`,
`jwt`, ...); a name that describes a credential rather than holding one (`token_type`,
`password_strength`, `auth_method`) is not. Some words are a credential's name only as the
whole name (an `X-` prefix aside), never as a part of a longer one, because as parts they name
ordinary things: `session`, `sid`, `sig`, `ticket`, `oauth_verifier`, `SAMLResponse`,
`mot_de_passe` (so `X-Session` and `?sid=` are redacted, `session_count` and `tickets=2` are
not). `code` is an OAuth authorization code only beside OAuth's own parameters: in a query,
fragment, form or JSON object that also carries `state`, `redirect_uri`, `client_id`,
`grant_type`, `code_verifier` or `session_state`, with a value of at least 6 characters
(`?code=4/P7q...&state=xyz` is redacted; a code-search form's `?code=def+main&lang=py` and an
airport's `code=JFK` are not). Page text such as "Prices include basic insurance" or "your
session has expired" and parameters such as `token_type=bearer` or `passengers=2` are left as
they are: no rule looks at plain words.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_plus

import orjson

from webtraj.model.secret_forms import secret_forms

REDACTED = "[REDACTED]"
_MIN_SECRET_LEN = 6
# Strings up to this long that hold JSON are parsed and redacted as data.
_MAX_EMBEDDED_JSON = 4_000_000
# Environment variables whose values must never be written.
_SECRET_ENV = re.compile(
    r"(API_KEY|_TOKEN|TOKEN_|SECRET|PASSWORD|PASSWD|CREDENTIAL|ACCESS_KEY|PRIVATE_KEY)",
    re.IGNORECASE)

# Parts of a name (split at -, _, ., spaces and camelCase) that make it a credential's name.
_CREDENTIAL_PARTS = frozenset({
    "authorization", "cookie", "token", "secret", "password", "passwd", "pwd", "passphrase",
    "pass", "passcode", "jwt", "otp", "totp", "bearer", "apikey", "csrf", "xsrf", "credential",
    "credentials", "auth", "sessionid", "sessid", "jsessionid", "phpsessid", "signature",
    "pw", "passwort"})
# Names that are a credential's only as the whole name (their parts joined, an `x` prefix
# aside): as a part of a longer name they name ordinary things (`session_count`, `tickets`).
_WHOLE_CREDENTIAL_NAMES = frozenset({
    "session", "sid", "sig", "ticket", "oauthverifier", "samlresponse", "samlart",
    "motdepasse", "contrasena", "contrasenya", "wachtwoord", "senha", "haslo"})
# `code` holds an OAuth authorization code when it travels with these (RFC 6749 4.1.2, 4.1.3,
# 7636; OpenID Connect's session_state).
_OAUTH_COMPANIONS = frozenset({"state", "redirect_uri", "client_id", "grant_type",
                               "code_verifier", "session_state"})
# A part written as one word ending in one of these ("accesstoken", "clientsecret").
_CREDENTIAL_ENDINGS = ("token", "secret", "password", "passwd", "apikey", "sessionid", "jwt")
# A last part that makes the name describe a credential instead of holding one.
_DESCRIBING_PARTS = frozenset({
    "type", "types", "hint", "expires", "expiry", "expiration", "exp", "in", "length", "len",
    "policy", "endpoint", "url", "uri", "method", "methods", "mode", "format", "version",
    "strength", "required", "scheme", "kind", "name", "label", "placeholder", "lifetime"})
_CREDENTIAL_PAIRS = frozenset({("api", "key"), ("access", "key"), ("private", "key"),
                               ("secret", "key"), ("session", "id"), ("client", "secret"),
                               ("auth", "key"), ("set", "cookie"), ("session", "key")})
# The keys of a HAR name/value entry (header, query parameter, form parameter).
_HAR_ENTRY_KEYS = frozenset({"name", "value", "comment", "fileName", "contentType"})
_NAME_SPLIT = re.compile(r"[-_.\s\[\]]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def credential_name(name: str, *, bare_key: bool = False) -> bool:
    """Is `name` (a header, query parameter, form field or config key) a credential's name?
    `bare_key` also counts a parameter named just "key" (as in `?key=...`)."""
    parts = [p.lower() for p in _NAME_SPLIT.split(name.strip().strip("[]")) if p]
    if not parts:
        return False
    if bare_key and parts == ["key"]:
        return True
    whole = "".join(parts[1:] if len(parts) > 1 and parts[0] == "x" else parts)
    if whole in _WHOLE_CREDENTIAL_NAMES:
        return True
    if len(parts) > 1 and parts[-1] in _DESCRIBING_PARTS:
        return False
    if any(p in _CREDENTIAL_PARTS or p.endswith(_CREDENTIAL_ENDINGS) for p in parts):
        return True
    return any(pair in _CREDENTIAL_PAIRS for pair in zip(parts, parts[1:], strict=False))


# `?token=...` / `&api_key=...` / `#access_token=...` inside URLs anywhere in text. The name
# must contain a credential word (confirmed by `credential_name`): most parameters are skipped
# by the regex.
_NAME_CHARS = r"[^=&#?;\s\"'<>]"
_QUERY_PARAM = re.compile(
    rf"((?:^|(?<=\s))|[?&;#])({_NAME_CHARS}*?(?i:key|token|secret|pass|pwd|auth|csrf|xsrf|cookie|sess|sid"
    rf"|sig|credential|jwt|otp|bearer|pw|ticket|verifier|saml|senha|contras|haslo|wachtwoord)"
    rf"{_NAME_CHARS}*)=([^&#;\s\"'<>]*)")
# A query string or fragment in text (the run of parameters after `?` or `#`), read whole to
# see whether a `code` in it travels with OAuth's parameters.
_PARAM_RUN = re.compile(r"(?:^|(?<=\s)|[?#])[^\s\"'<>#?]*code=[^\s\"'<>#]*")
# A flat JSON object quoted in text that has a "code" key (read whole, as above).
_CODE_OBJECT = re.compile(r'\{[^{}]*\\*"code\\*"\s*:[^{}]*\}')
_CODE_PAIR = re.compile(r"(^|[?&;#])(code=)([^&#;\s\"'<>]*)")
# `"name": "value"` (JSON quoted in text): the value of a credential-named key.
_QUOTED_PAIR = re.compile(r'\\*"([^"\\\n]{1,80})\\*"\s*:\s*\\*"([^"\\\n]*)\\*"')
# A multipart field quoted in text: its Content-Disposition line, other header lines, a blank
# line, then the value.
_FORM_DATA_FIELD = re.compile(
    r'(?i)(content-disposition:[^\r\n]*?\bname="?([^";\r\n]*)"?[^\r\n]*\r?\n'
    r"(?:[^\r\n]+\r?\n)*?\r?\n)([^\r\n]*)")
# A JSON Web Token: base64url header and payload that both open a JSON object, and a signature.
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
# A body that is urlencoded whatever its label says: `name=value` pairs joined by `&`.
_FORM_BODY = re.compile(r"[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*")
_BOUNDARY = re.compile(r"(?i)boundary=(?:\"([^\"]+)\"|([^;\s]+))")
_PART_NAME = re.compile(r"(?i)content-disposition:[^\r\n]*?\bname=\"?([^\";\r\n]*)")
# `name=value` pairs of a urlencoded body (no leading ? needed).
_FORM_PAIR = re.compile(r"(^|&)([^=&]+)=([^&]*)")
# Userinfo of a URL: `scheme://user:password@host`.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/?#\s@\"'<>]+)@")
# A credential header quoted in text: the header's name, a colon, and a credential's shape.
_HEADER_LINE = re.compile(
    r"(?i)\b(authorization|proxy-authorization)(\s*:\s*)"
    r"(?:(?:bearer|basic|digest|token|negotiate|apikey)\s+)[A-Za-z0-9._~+/=\-]+"
    r"|\b(set-cookie|cookie)(\s*:\s*)[^=\s;:,]+=[^\r\n]*"
    r"|\b(x-[a-z0-9-]*(?:token|key|secret|auth)[a-z0-9-]*)(\s*:\s*)[^\s,;]+")
# Any other hyphenated header name quoted with its value (`Api-Key: ...`, `Auth-Token: ...`),
# redacted when the name is a credential's name.
_HYPHEN_HEADER = re.compile(r"(?i)\b([a-z0-9]+(?:-[a-z0-9]+)+)(\s*:\s*)([^\s,;]+)")


def secrets_from_env(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= _MIN_SECRET_LEN]


class Redactor:
    """Walks JSON-like data (or one text) and returns a redacted copy."""

    def __init__(self, secrets: Iterable[str] = (), *, include_env: bool = True) -> None:
        self.secrets: list[str] = []
        self._secret_re: re.Pattern[str] | None = None
        self.add_secrets([*(secrets_from_env() if include_env else ()), *secrets])

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Know these values too (from now on): an account's password once the run has read
        its accounts, a value once it was typed into a password field."""
        found = set(self.secrets)
        found.update(s for s in secrets if s and len(s) >= _MIN_SECRET_LEN)
        if len(found) == len(self.secrets):
            return
        self.secrets = sorted(found, key=len, reverse=True)
        forms = {f for s in self.secrets for f in secret_forms(s) if len(f) >= _MIN_SECRET_LEN}
        # Longest first so a form containing another is replaced whole.
        self._secret_re = re.compile("|".join(re.escape(f) for f in
                                              sorted(forms, key=len, reverse=True)))

    def text(self, s: str) -> str:
        if s[:1] in ("{", "[") or s.lstrip()[:1] in ("{", "["):
            embedded = self._embedded_json(s)
            if embedded is not None:
                return embedded
        if self._secret_re is not None:
            s = self._secret_re.sub(REDACTED, s)
        if "eyJ" in s:
            s = _JWT.sub(REDACTED, s)
        if "://" in s and "@" in s:
            s = _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", s)
        if "=" in s:
            s = _QUERY_PARAM.sub(self._param, s)
            if "code=" in s:
                s = _PARAM_RUN.sub(lambda m: _oauth_code(m.group(0)), s)
        if '"' in s and ":" in s:
            s = _QUOTED_PAIR.sub(self._quoted_pair, s)
            if '"code' in s or 'code\\"' in s:
                s = _CODE_OBJECT.sub(lambda m: _oauth_code_object(m.group(0)), s)
        if "form-data" in s:
            s = _FORM_DATA_FIELD.sub(self._form_field, s)
        if ":" in s:
            low = s.lower()
            if "authorization" in low or "cookie" in low or "x-" in low:
                s = _HEADER_LINE.sub(_header_line, s)
            if "-" in s:
                s = _HYPHEN_HEADER.sub(_hyphen_header, s)
        return s

    def json_bytes(self, data: bytes) -> bytes:
        """A JSON file's bytes (a HAR, an agent log), redacted as data; bytes that are not
        JSON after all are redacted as text, never written in clear."""
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            return self.text(data.decode("utf-8", "replace")).encode()
        return orjson.dumps(self.data(obj))

    def _embedded_json(self, s: str) -> str | None:
        """A string that holds a JSON document (a logged request, a model's raw output),
        redacted as data; None when it is not JSON."""
        if len(s) > _MAX_EMBEDDED_JSON:
            return None
        try:
            parsed = orjson.loads(s)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(parsed, dict | list):
            return None
        redacted = self.data(parsed)
        return s if redacted == parsed else orjson.dumps(redacted).decode()

    @staticmethod
    def _param(m: re.Match[str]) -> str:
        if m.group(3) and m.group(3) != REDACTED \
                and credential_name(unquote_plus(m.group(2)), bare_key=True):
            return f"{m.group(1)}{m.group(2)}={REDACTED}"
        return m.group(0)

    @staticmethod
    def _quoted_pair(m: re.Match[str]) -> str:
        if m.group(2) and m.group(2) != REDACTED and credential_name(m.group(1)):
            return (f"{m.group(0)[:m.start(2) - m.start(0)]}{REDACTED}"
                    f"{m.group(0)[m.end(2) - m.start(0):]}")
        return m.group(0)

    @staticmethod
    def _form_field(m: re.Match[str]) -> str:
        if m.group(3).strip() and m.group(3) != REDACTED and credential_name(
                m.group(2), bare_key=True):
            return f"{m.group(1)}{REDACTED}"
        return m.group(0)

    def form(self, body: str) -> str:
        """A urlencoded body: credential-named fields lose their values."""
        body = _FORM_PAIR.sub(lambda m: (f"{m.group(1)}{m.group(2)}={REDACTED}"
                                         if m.group(3) and credential_name(
                                             unquote_plus(m.group(2)), bare_key=True)
                                         else m.group(0)), body)
        return self.text(_oauth_code(body) if "code=" in body else body)

    def body(self, text: str, mime: str = "") -> str:
        """A request or response body of any declared type: JSON and urlencoded bodies are
        recognised by their content too (a JSON body sent as text/plain), multipart bodies are
        read part by part."""
        mime = mime.lower()
        if "multipart/" in mime:
            return self._multipart(text, mime)
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                parsed = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                pass
            else:  # rewritten only when something was redacted: the body keeps its form
                redacted = self.data(parsed)
                return text if redacted == parsed else orjson.dumps(redacted).decode()
        if "x-www-form-urlencoded" in mime or (
                "=" in stripped and _FORM_BODY.fullmatch(stripped)):
            return self.form(text)
        return self.text(text)

    def _multipart(self, text: str, mime: str) -> str:
        m = _BOUNDARY.search(mime)
        boundary = (m.group(1) or m.group(2)) if m else None
        if not boundary or f"--{boundary}" not in text:
            return self.text(text)
        pieces = text.split(f"--{boundary}")
        return f"--{boundary}".join(self._part(p) for p in pieces)

    def _part(self, part: str) -> str:
        head, sep, content = part.partition("\r\n\r\n")
        if not sep:
            head, sep, content = part.partition("\n\n")
        if not sep:
            return self.text(part)
        name = _PART_NAME.search(head)
        if name and credential_name(name.group(1), bare_key=True) and content.strip():
            tail = content[len(content.rstrip("\r\n")):]
            return f"{self.text(head)}{sep}{REDACTED}{tail}"
        type_m = re.search(r"(?i)content-type:\s*([^\r\n]+)", head)
        return f"{self.text(head)}{sep}{self.body(content, type_m.group(1) if type_m else '')}"

    def data(self, obj: Any, _key: str | None = None) -> Any:
        if isinstance(obj, dict):
            return self._mapping(obj)
        if isinstance(obj, list):
            if _key is not None and _key.lower() == "cookies":
                return [self._cookie(c) for c in obj]
            out = [self.data(x) for x in obj]
            # HAR queryString / params: name-value entries read together for an OAuth code.
            names = {x["name"] for x in obj if isinstance(x, dict)
                     and isinstance(x.get("name"), str)}
            if "code" in names and names & _OAUTH_COMPANIONS:
                out = [{**x, "value": REDACTED} if isinstance(x, dict) and x.get("name") == "code"
                       and _oauth_code_value(x.get("value")) else x for x in out]
            return out
        if isinstance(obj, str):
            return self.text(obj)
        return obj

    def _mapping(self, obj: dict) -> dict:
        name = obj.get("name")
        # HAR header / query / form entry: {"name": "X-Auth-Token", "value": "..."}
        if isinstance(name, str) and isinstance(obj.get("value"), str) and obj["value"] \
                and obj.keys() <= _HAR_ENTRY_KEYS and credential_name(name, bare_key=True):
            return {**{k: self.data(v, k) for k, v in obj.items() if k != "value"},
                    "value": REDACTED}
        if isinstance(obj.get("mimeType"), str) and isinstance(obj.get("text"), str):
            return self._body(obj)
        oauth = "code" in obj and bool(obj.keys() & _OAUTH_COMPANIONS)
        out = {}
        for k, v in obj.items():
            if isinstance(v, str) and isinstance(k, str) and v and (
                    credential_name(k) or (oauth and k == "code" and _oauth_code_value(v))):
                out[k] = REDACTED
            else:
                out[k] = self.data(v, k if isinstance(k, str) else None)
        return out

    def _body(self, obj: dict) -> dict:
        """A HAR postData / content: the text is read by its MIME type, and as JSON whatever
        the MIME type when it parses as JSON (a JSON body sent as text/plain)."""
        out = {k: self.data(v, k) for k, v in obj.items() if k != "text"}
        mime, text = obj["mimeType"].lower(), obj["text"]
        looks_json = text[:1] in ("{", "[") or text.lstrip()[:1] in ("{", "[")
        if "x-www-form-urlencoded" in mime:
            out["text"] = self.form(text)
        elif "multipart/form-data" in mime:
            out["text"] = self.text(_MULTIPART_FIELD.sub(_multipart_field, text))
        elif ("json" in mime or looks_json) and obj.get("encoding") != "base64":
            try:
                parsed = orjson.loads(text)
            except orjson.JSONDecodeError:
                out["text"] = self.text(text)
            else:  # rewritten only when something was redacted: the body keeps its form
                redacted = self.data(parsed)
                out["text"] = text if redacted == parsed else orjson.dumps(redacted).decode()
        else:
            out["text"] = self.text(text)
        return out

    def _cookie(self, cookie: Any) -> Any:
        if isinstance(cookie, dict):
            return {k: (REDACTED if k == "value" else self.data(v)) for k, v in cookie.items()}
        return self.data(cookie)


# One part of a multipart/form-data body: its headers (naming the field), then its value.
_MULTIPART_FIELD = re.compile(
    r'(Content-Disposition:[^\r\n]*?\bname="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)'
    r"(.*?)(?=\r?\n--)", re.IGNORECASE | re.DOTALL)


def _multipart_field(m: re.Match[str]) -> str:
    if m.group(3) and credential_name(m.group(2), bare_key=True):
        return m.group(1) + REDACTED
    return m.group(0)


def _oauth_code_value(value: object) -> bool:
    return isinstance(value, str) and len(value) >= _MIN_SECRET_LEN and value != REDACTED


def _oauth_code(params: str) -> str:
    """A query string, fragment or urlencoded body with the value of its `code` redacted
    when it travels with OAuth's parameters (module docstring)."""
    names = {unquote_plus(n).lower() for n in re.findall(r"(?:^|[?&;#])([^=&;#?]+)=", params)}
    if not names & _OAUTH_COMPANIONS:
        return params
    return _CODE_PAIR.sub(lambda m: (f"{m.group(1)}{m.group(2)}{REDACTED}"
                                     if _oauth_code_value(unquote_plus(m.group(3)))
                                     else m.group(0)), params)


def _oauth_code_object(obj: str) -> str:
    """A flat JSON object quoted in text, with its "code" redacted beside OAuth's keys."""
    keys = {m.group(1) for m in _QUOTED_PAIR.finditer(obj)}
    if not keys & _OAUTH_COMPANIONS:
        return obj
    return _QUOTED_PAIR.sub(lambda m: (f"{m.group(0)[:m.start(2) - m.start(0)]}{REDACTED}"
                                       f"{m.group(0)[m.end(2) - m.start(0):]}"
                                       if m.group(1) == "code" and _oauth_code_value(m.group(2))
                                       else m.group(0)), obj)


def _hyphen_header(m: re.Match[str]) -> str:
    # The name must end in a credential word (`Api-Key`, `Auth-Token`), so that prose such as
    # "Pass-through: yes" stays as it is.
    last = m.group(1).rsplit("-", 1)[-1]
    if m.group(3) == REDACTED or not credential_name(m.group(1)) \
            or not credential_name(last, bare_key=True):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{REDACTED}"


def _header_line(m: re.Match[str]) -> str:
    name = m.group(1) or m.group(3) or m.group(5)
    sep = m.group(2) or m.group(4) or m.group(6)
    return f"{name}{sep}{REDACTED}"
