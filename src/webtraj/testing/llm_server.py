"""A scripted OpenAI-compatible chat server on 127.0.0.1 (a test double, never a model).

    with ScriptedLLMServer(default="ok") as srv:
        srv.add_rule('{"answer": 1}', contains="capital of France")
        srv.inject(Fault.rate_limit(retry_after=0.1), times=2)
        spec = ModelSpec(base_url=srv.base_url, model="scripted")
        ...
        assert srv.request_count == 3

Standard-library `ThreadingHTTPServer` (one thread per connection, HTTP/1.1 keep-alive), so
it needs no optional dependency and handles hundreds of concurrent connections."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from webtraj.testing.llm_rules import (
    Fault,
    FaultEntry,
    Predicate,
    ReplyFn,
    Rule,
    Script,
    ScriptedReply,
    ScriptedRequest,
    _matcher,
)


class ScriptedLLMServer:
    def __init__(
        self,
        rules: Iterable[Rule] = (),
        *,
        default: str | ReplyFn | None = None,
        delay: float = 0.0,
        api_key: str | None = None,
        models: Iterable[str] = ("scripted",),
        host: str = "127.0.0.1",
        port: int = 0,
        keep_log: bool = True,
    ) -> None:
        """`default` answers requests no rule matches (otherwise they get HTTP 400); `delay`
        applies to every reply; with `api_key`, requests without that bearer token get 401.
        """
        self.script = Script()
        self.script.rules.extend(rules)
        self.default = default
        self.delay = delay
        self.api_key = api_key
        self.models = tuple(models)
        self.keep_log = keep_log
        self._host, self._port = host, port
        self._lock = threading.Lock()
        self._count = 0
        self._log: list[ScriptedRequest] = []
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script -------------------------------------------------------------------------
    def add_rule(self, reply: str | ReplyFn, *, contains: str | None = None,
                 regex: str | re.Pattern[str] | None = None, when: Predicate | None = None,
                 times: int | None = None, delay: float = 0.0) -> Rule:
        rule = Rule(reply=reply, contains=contains, regex=regex, when=when, times=times,
                    delay=delay)
        with self.script.lock:
            self.script.rules.append(rule)
        return rule

    def inject(self, fault: Fault, *, times: int | None = 1, contains: str | None = None,
               regex: str | None = None, when: Predicate | None = None) -> None:
        """Answer the next `times` matching requests (None: all of them) with `fault`.
        Faults are consumed in the order they were injected."""
        with self.script.lock:
            self.script.faults.append(FaultEntry(fault, times, _matcher(contains, regex, when)))

    def clear_faults(self) -> None:
        with self.script.lock:
            self.script.faults.clear()

    # --- observation --------------------------------------------------------------------
    @property
    def request_count(self) -> int:
        """Chat-completion requests received (faulty ones included)."""
        with self._lock:
            return self._count

    @property
    def requests(self) -> list[ScriptedRequest]:
        with self._lock:
            return list(self._log)

    def reset(self) -> None:
        with self._lock:
            self._count = 0
            self._log.clear()

    # --- lifecycle ----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the scripted server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedLLMServer:
        if self._httpd is not None:
            return self
        self._stop.clear()
        httpd = _HTTPServer((self._host, self._port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stop.set()  # wakes handlers sleeping in delays
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling (called from handler threads) ---------------------------------
    def _record(self, path: str, body: dict[str, Any], authorized: bool) -> ScriptedRequest:
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        last_user, n_images = "", 0
        for m in messages:
            if not isinstance(m, dict):
                continue
            content = m.get("content")
            if isinstance(content, list):
                n_images += sum(1 for p in content
                                if isinstance(p, dict) and p.get("type") == "image_url")
            if m.get("role") == "user":
                last_user = _text_of(content)
        with self._lock:
            index = self._count
            self._count += 1
            req = ScriptedRequest(
                index=index, path=path, model=str(body.get("model", "")),
                messages=tuple(m for m in messages if isinstance(m, dict)),
                params={k: v for k, v in body.items() if k not in ("model", "messages")},
                last_user=last_user, n_images=n_images, authorized=authorized,
                received_at=time.time())
            if self.keep_log:
                self._log.append(req)
        return req

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)

    def _completion(self, req: ScriptedRequest) -> tuple[int, dict[str, Any]]:
        rule = self.script.pick_rule(req)
        if rule is not None:
            reply = rule.answer(req)
            delay = rule.delay + reply.delay
        elif self.default is not None:
            out = self.default(req) if callable(self.default) else self.default
            reply = out if isinstance(out, ScriptedReply) else ScriptedReply(content=str(out))
            delay = reply.delay
        else:
            return 400, _error(f"no scripted rule matched the last user message: "
                               f"{req.last_user[:200]!r}", "invalid_request_error")
        self._sleep(self.delay + delay)
        from webtraj.llm.tokens import estimate_tokens

        prompt = reply.prompt_tokens
        if prompt is None:  # like a real server's, the images' tokens included
            prompt = sum(estimate_tokens(_text_of(m.get("content"))) + 4
                         for m in req.messages) + _image_tokens(req)
        completion = reply.completion_tokens
        if completion is None:
            completion = estimate_tokens(reply.content)
        return 200, {
            "id": f"chatcmpl-scripted-{req.index}", "object": "chat.completion",
            "created": int(time.time()), "model": req.model or self.models[0],
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024
    allow_reuse_address = True
    owner: ScriptedLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is expected here, not an error worth a trace.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _HTTPServer
    server_version = "webtraj-scripted-llm"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; the request log is on the server object

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1") else path

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path.rstrip("/") == "/_scripted/stats":  # for a server in another process
            self._send(200, {"requests": owner.request_count})
        elif self._route() == "/models":
            self._send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "owned_by": "webtraj-scripted"}
                for m in owner.models]})
        else:
            self._send(404, _error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self._route() != "/chat/completions":
            self._send(404, _error(f"no route {self.path}", "not_found"))
            return
        if owner._stop.is_set():
            self.close_connection = True
            self._send(503, _error("server stopping", "unavailable"))
            return
        try:
            body = orjson.loads(raw)
            if not isinstance(body, dict):
                raise ValueError
        except ValueError:
            self._send(400, _error("request body is not a JSON object", "invalid_request_error"))
            return
        auth = self.headers.get("Authorization") or ""
        authorized = owner.api_key is None or auth == f"Bearer {owner.api_key}"
        req = owner._record(self.path, body, authorized)
        if not authorized:
            self._send(401, _error("invalid or missing API key", "authentication_error"))
            return
        fault = owner.script.next_fault(req)
        if fault is not None and fault.kind != "delay":
            self._fault(fault)
            return
        if fault is not None:
            owner._sleep(fault.seconds)
        status, payload = owner._completion(req)
        self._send(status, payload)

    def _fault(self, fault: Fault) -> None:
        if fault.kind == "status":
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = f"{fault.retry_after:g}"
            self._send(fault.status, _error(fault.message, "injected"), headers)
        elif fault.kind == "malformed":
            self._send(200, b'{"id": "x", "choices": [{"message": {"content": "unterminated')
        elif fault.kind == "empty_choices":
            self._send(200, {"id": "x", "object": "chat.completion", "choices": []})
        elif fault.kind == "truncated":
            body = orjson.dumps({"id": "x", "choices": [{"index": 0, "message": {
                "role": "assistant", "content": "this reply is cut short " * 8}}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
        elif fault.kind == "disconnect":
            self.close_connection = True


def _image_tokens(req: ScriptedRequest) -> int:
    """The request's images by the tile rule (0 for a request the client could not build)."""
    from webtraj.llm.messages import as_messages
    from webtraj.llm.tokens import image_tokens

    if not req.n_images:
        return 0
    try:
        return image_tokens(as_messages(list(req.messages)))
    except ValueError:
        return 0
