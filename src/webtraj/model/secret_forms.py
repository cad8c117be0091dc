"""Every form a known secret takes when it travels: raw, percent-encoded (upper- and lower-case
hex, `+` for space, encoded twice), base64 (standard and URL-safe, padded or not, and inside a
longer base64 text at any byte offset), JSON-escaped and HTML-escaped. The redactor replaces
each of them, so a key in a query string or a Basic credential is caught as surely as the raw
value."""

from __future__ import annotations

import base64
import html
import json
import re
from urllib.parse import quote, quote_plus

# A base64 fragment shorter than this could match unrelated text by chance.
_MIN_BASE64_CORE = 8
_HEX_ESCAPE = re.compile(r"%[0-9A-F]{2}")


def _lower_hex(text: str) -> str:
    return _HEX_ESCAPE.sub(lambda m: m.group(0).lower(), text)


def percent_forms(secret: str) -> set[str]:
    forms = {quote(secret, safe=""), quote(secret, safe="/"), quote_plus(secret),
             quote_plus(secret, safe="/"), quote(quote(secret, safe=""), safe=""),
             # JavaScript's encodeURIComponent and encodeURI leave these characters alone.
             quote(secret, safe="!'()*~"), quote(secret, safe=";/?:@&=+$,#!'()*~")}
    return forms | {_lower_hex(f) for f in forms}


def base64_cores(secret: str) -> set[str]:
    """The base64 characters that depend on the secret's bytes alone, at each of the three
    byte offsets it can have inside a longer encoded text (such as `user:secret`)."""
    raw = secret.encode()
    cores: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        start = -(-offset * 8 // 6)  # first character free of the prefix's bits
        end = (offset + len(raw)) * 8 // 6  # last character free of any following bits
        core = encoded[start:end]
        if len(core) >= _MIN_BASE64_CORE:
            cores.add(core)
            cores.add(core.replace("+", "-").replace("/", "_"))
    whole = base64.b64encode(raw).decode()
    url_safe = base64.urlsafe_b64encode(raw).decode()
    cores.update({whole, whole.rstrip("="), url_safe, url_safe.rstrip("=")})
    return cores


def escaped_forms(secret: str) -> set[str]:
    json_ascii = json.dumps(secret)[1:-1]
    json_utf8 = json.dumps(secret, ensure_ascii=False)[1:-1]
    return {json_ascii, json_utf8, json_ascii.replace("/", "\\/"),
            html.escape(secret, quote=True), html.escape(secret, quote=False)}


def secret_forms(secret: str) -> set[str]:
    """All encodings of `secret` worth looking for (the raw value included)."""
    return {secret} | percent_forms(secret) | base64_cores(secret) | escaped_forms(secret)
