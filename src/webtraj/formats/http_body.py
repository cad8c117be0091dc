"""HTTP request bodies as HAR 1.2 `postData`: the text, and the fields of a form.

One reading of bodies for every side: the browser records them this way, evaluators read
form and multipart fields with the same parsers. A body that is not UTF-8 is kept as base64
(`"encoding": "base64"`, as HAR content does); a body over `MAX_BODY_BYTES` keeps its
MIME type and size, and a comment says why its text is absent.
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import parse_qsl

# Larger bodies (uploads) are not what evaluators read; their size is still recorded.
MAX_BODY_BYTES = 2 << 20
_BOUNDARY = re.compile(r"boundary=(?:\"([^\"]+)\"|([^;\s]+))", re.IGNORECASE)
_DISPOSITION_PARAM = re.compile(r';\s*([A-Za-z*]+)="((?:[^"\\]|\\.)*)"|;\s*([A-Za-z*]+)=([^;\s]+)')


def form_params(text: str) -> list[dict[str, str]]:
    """The fields of a urlencoded body, in order, blank values kept."""
    return [{"name": k, "value": v} for k, v in parse_qsl(text, keep_blank_values=True)]


def multipart_boundary(mime: str) -> str | None:
    m = _BOUNDARY.search(mime)
    return (m.group(1) or m.group(2)) if m else None


def multipart_params(text: str, boundary: str) -> list[dict[str, str]]:
    """The parts of a multipart/form-data body as HAR params: name and value, plus fileName
    and contentType for a file part (whose value is its content as sent, often empty: the
    browser does not report an uploaded file's bytes)."""
    out: list[dict[str, str]] = []
    for part in text.split(f"--{boundary}"):
        if part.startswith("--"):
            break  # the closing delimiter
        part = part.removeprefix("\r\n").removeprefix("\n")
        if "\r\n\r\n" in part:
            head, value = part.split("\r\n\r\n", 1)
        elif "\n\n" in part:
            head, value = part.split("\n\n", 1)
        else:
            continue
        value = value.removesuffix("\r\n").removesuffix("\n")
        params: dict[str, str] = {}
        content_type = None
        for line in re.split(r"\r?\n", head):
            name, _, rest = line.partition(":")
            if name.strip().lower() == "content-disposition":
                for m in _DISPOSITION_PARAM.finditer(rest):
                    key = (m.group(1) or m.group(3)).lower()
                    params[key] = m.group(2) if m.group(1) else m.group(4)
            elif name.strip().lower() == "content-type":
                content_type = rest.strip()
        if "name" not in params:
            continue
        entry = {"name": params["name"], "value": value}
        if "filename" in params:
            entry["fileName"] = params["filename"]
        if content_type:
            entry["contentType"] = content_type
        out.append(entry)
    return out


def post_data(body: bytes, mime: str) -> dict[str, Any]:
    """HAR `postData` for a request body sent with Content-Type `mime`."""
    out: dict[str, Any] = {"mimeType": mime}
    if len(body) > MAX_BODY_BYTES:
        out["text"] = ""
        out["comment"] = (f"body of {len(body)} bytes not kept (over {MAX_BODY_BYTES} "
                          "bytes)")
        return out
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        out["text"] = base64.b64encode(body).decode("ascii")
        out["encoding"] = "base64"
        return out
    out["text"] = text
    low = mime.lower()
    if "application/x-www-form-urlencoded" in low:
        out["params"] = form_params(text)
    elif "multipart/form-data" in low and (boundary := multipart_boundary(mime)):
        out["params"] = multipart_params(text, boundary)
    return out
