"""Redacting a command line before it is recorded (the command a run was made with, a site's
`--reset-cmd`): everything `Redactor.text` redacts (known secrets in every encoding, URL
userinfo, `PASSWORD=...`, `--password=...`, credential query parameters, header lines), and
what only a command line holds: the value after an option named as a credential
(`--password hunter2`, `--api-key "k 1"`, `-token x`) and the password of a `user:password`
given to `-u`/`--user`/`--proxy-user` (curl, wget). Page text never goes through this: an
option-like word in prose is not a command line."""

from __future__ import annotations

import re

from webtraj.model.redact import REDACTED, Redactor, credential_name

# An option (at a word's start, also inside a quoted argument) and the space before its value.
_OPTION = re.compile(r"""(?<![^\s"'=])(-{1,2}[A-Za-z][\w.-]*)(\s+)""")
_VALUE = re.compile(r"""("[^"]*"|'[^']*'|[^\s"']+)""")
# curl/wget's `-u user:password` (also `--user=user:password`).
_USER_PASS = re.compile(
    r"""(?<!\S)(-u|--user|--proxy-user|--http-user)(\s+|=)(["']?)([^:\s"']*):([^\s"']+)\3""")


def _option_values(text: str) -> str:
    out, last = [], 0
    for m in _OPTION.finditer(text):
        value = _VALUE.match(text, m.end())
        if (value is None or value.group(0).startswith("-") or m.start() < last
                or not credential_name(m.group(1).lstrip("-"))):
            continue
        out += [text[last:m.end()], REDACTED]
        last = value.end()
    return "".join(out) + text[last:]


def redact_command(text: str, redactor: Redactor | None = None) -> str:
    """`text` (a shell command line) with its credentials replaced by [REDACTED]."""
    text = _USER_PASS.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(4)}:"
                          f"{REDACTED}{m.group(3)}", text)
    text = _option_values(text)
    return (redactor or Redactor()).text(text)
