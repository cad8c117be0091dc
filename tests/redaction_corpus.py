"""The leak corpus (tests/data/redaction_corpus.json): leaks that must never be written and
look-alikes that must stay as they are, and how each entry looks in the places it can travel."""

from __future__ import annotations

import json
from pathlib import Path

from webtraj.model.redact import Redactor

CORPUS = Path(__file__).parent / "data" / "redaction_corpus.json"


def entries(port: int = 9) -> list[dict]:
    data = json.loads(CORPUS.read_text())["entries"]
    for e in data:
        if "url" in e:
            e["url"] = e["url"].replace("{port}", str(port))
    return data


def leaks(port: int = 9) -> list[dict]:
    return [e for e in entries(port) if e["leak"]]


def lookalikes(port: int = 9) -> list[dict]:
    return [e for e in entries(port) if not e["leak"]]


def original(e: dict) -> str:
    """The entry's text as written before redaction."""
    return e.get("url") or e.get("text") or e["value"]


def as_text(e: dict) -> str:
    """The entry as it reads when quoted in text (a log line, an answer, a thought)."""
    where = e["where"]
    if where == "header":
        return f"{e['name']}: {e['value']}"
    if where == "cookie":
        return f"Cookie: {e['name']}={e['value']}"
    if where == "set_cookie":
        return f"Set-Cookie: {e['value']}"
    return original(e)


def redact(redactor: Redactor, e: dict) -> str:
    """The entry through the redactor, placed as it travels (a HAR entry for headers, cookies
    and bodies)."""
    where = e["where"]
    if where in ("url", "text"):
        return redactor.text(original(e))
    if where in ("header", "set_cookie"):
        return redactor.data({"name": e["name"], "value": e["value"]})["value"]
    if where == "cookie":
        return redactor.data({"cookies": [{"name": e["name"], "value": e["value"]}]}
                             )["cookies"][0]["value"]
    return redactor.data({"mimeType": e["mime"], "text": e["text"]})["text"]


def har_of(entries_: list[dict], base: str) -> dict:
    """One HAR holding every entry where it belongs: URLs as request URLs, headers, cookies,
    Set-Cookie, bodies as request postData and response content, text in a response body."""
    out = []
    for e in entries_:
        req = {"method": "GET", "url": f"{base}/plain", "httpVersion": "HTTP/1.1", "headers": [],
               "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0}
        resp = {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
                "cookies": [], "content": {"size": 0, "mimeType": "text/plain", "text": ""},
                "redirectURL": "", "headersSize": -1, "bodySize": 0}
        where = e["where"]
        if where == "url":
            req["url"] = e["url"]
        elif where == "header":
            req["headers"].append({"name": e["name"], "value": e["value"]})
        elif where == "cookie":
            req["cookies"].append({"name": e["name"], "value": e["value"]})
        elif where == "set_cookie":
            resp["headers"].append({"name": "Set-Cookie", "value": e["value"]})
        elif where == "body":
            req["method"] = "POST"
            req["postData"] = {"mimeType": e["mime"], "text": e["text"]}
            resp["content"] = {"size": len(e["text"]), "mimeType": e["mime"], "text": e["text"]}
        else:
            resp["content"] = {"size": len(e["text"]), "mimeType": "text/plain", "text": e["text"]}
        out.append({"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1, "request": req,
                    "response": resp, "cache": {}, "timings": {"send": 0, "wait": 1,
                                                                "receive": 0}})
    return {"log": {"version": "1.2", "creator": {"name": "corpus", "version": "1"},
                    "entries": out}}


def scan(folder: Path, secrets: list[str]) -> dict[str, list[str]]:
    """Which secrets appear in which files under `folder` (bytes, as written)."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for s in secrets:
            if s.encode() in data:
                found.setdefault(s, []).append(str(path.relative_to(folder)))
    return found
