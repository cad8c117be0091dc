"""An OpenAI-compatible `/v1/chat/completions` endpoint for a local model (starlette +
uvicorn), so a trained student runs unchanged behind the `llm` and `mindact` agents and the
judges (`--llm base_url=http://127.0.0.1:PORT/v1,model=NAME`).

    with LocalServer(LocalModel("base", adapter="out/adapter"), name="student") as srv:
        ... srv.base_url ...

A vision-language student reads `image_url` parts given as data URLs (base64 PNG, JPEG,
GIF or WebP); it fetches nothing, so a remote URL is a 400, as is an image sent to a text
model. For real models on GPUs, vLLM serves the same API (see docs/training.md)."""

from __future__ import annotations

import binascii
import io
import threading
import time
import uuid
from typing import Any

import anyio
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from webtraj.train.local_model import LocalModel


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


class BadRequest(ValueError):
    """A request the server answers with 400 and this message."""


def _image(part: dict[str, Any], where: str) -> Any:
    """The PIL image of an image_url part; only data URLs (the server fetches nothing)."""
    from PIL import Image, UnidentifiedImageError

    from webtraj.llm.images import decode_data_url

    url = (part.get("image_url") or {}).get("url") if isinstance(
        part.get("image_url"), dict) else part.get("image_url")
    if not isinstance(url, str):
        raise BadRequest(f"{where}.image_url.url must be a string")
    if not url.startswith("data:"):
        raise BadRequest(f"{where}: only data URLs (data:image/png;base64,...) are accepted; "
                         "serve-local fetches no remote images")
    try:
        _, data = decode_data_url(url)
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            return img
    except (ValueError, binascii.Error, UnidentifiedImageError, OSError) as exc:
        raise BadRequest(f"{where}: not a readable base64 image ({exc})") from None


def _content(content: Any, where: str, images: bool) -> str | list[dict[str, Any]]:
    """A string, or the parts of a content list: text parts joined into a string for a text
    model; text and image parts (images decoded) for a vision model."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadRequest(f"{where}.content must be a string or a list of parts")
    parts: list[dict[str, Any]] = []
    for j, p in enumerate(content):
        at = f"{where}.content[{j}]"
        kind = p.get("type") if isinstance(p, dict) else None
        if kind == "text" and isinstance(p.get("text"), str):
            parts.append({"type": "text", "text": p["text"]})
        elif kind == "image_url":
            if not images:
                raise BadRequest(f"{at}: this model reads no images (a text model)")
            parts.append({"type": "image", "image": _image(p, at)})
        else:
            raise BadRequest(f"{at} must be a text part or an image_url part")
    if not images:
        return "".join(p["text"] for p in parts)
    return parts


def _messages(body: dict[str, Any], images: bool) -> list[dict[str, Any]]:
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise BadRequest("'messages' must be a non-empty list")
    out = []
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise BadRequest(f"messages[{i}] needs a 'role'")
        out.append({"role": m["role"],
                    "content": _content(m.get("content"), f"messages[{i}]", images)})
    return out


def _number(body: dict[str, Any], key: str, kind: type) -> Any:
    v = body.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or (kind is int and v != int(v)):
        raise ValueError(f"'{key}' must be a number")
    return kind(v)


def build_app(model: LocalModel, name: str) -> Starlette:
    async def models(_: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [
            {"id": name, "object": "model", "owned_by": "webtraj"}]})

    async def chat(request: Request) -> JSONResponse:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return _error(400, f"invalid JSON: {exc}")
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object")
        if body.get("model") not in (None, name):
            return _error(404, f"model {body.get('model')!r} is not served here; "
                               f"this server serves {name!r}", "not_found_error")
        if body.get("stream"):
            return _error(400, "streaming is not supported by serve-local")
        if (body.get("n") or 1) != 1:
            return _error(400, "only n=1 is supported by serve-local")
        try:
            msgs = _messages(body, model.reads_images)
        except BadRequest as exc:
            return _error(400, str(exc))
        stop = body.get("stop")
        stop = [stop] if isinstance(stop, str) else stop
        if stop is not None and not (isinstance(stop, list)
                                     and all(isinstance(s, str) for s in stop)):
            return _error(400, "'stop' must be a string or a list of strings")
        try:
            max_tokens = _number(body, "max_completion_tokens", int) or _number(
                body, "max_tokens", int)
            params = {"max_tokens": max_tokens,
                      "temperature": _number(body, "temperature", float),
                      "top_p": _number(body, "top_p", float),
                      "seed": _number(body, "seed", int), "stop": stop}
        except ValueError as exc:
            return _error(400, str(exc))
        if max_tokens is not None and max_tokens < 1:
            return _error(400, "'max_tokens' must be at least 1")
        gen = await anyio.to_thread.run_sync(lambda: model.generate(msgs, **params))
        return JSONResponse({
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion",
            "created": int(time.time()), "model": name,
            "choices": [{"index": 0, "finish_reason": gen.finish_reason,
                         "message": {"role": "assistant", "content": gen.text}}],
            "usage": {"prompt_tokens": gen.prompt_tokens,
                      "completion_tokens": gen.completion_tokens,
                      "total_tokens": gen.prompt_tokens + gen.completion_tokens}})

    return Starlette(routes=[Route("/v1/models", models, methods=["GET"]),
                             Route("/v1/chat/completions", chat, methods=["POST"])])


class LocalServer:
    """uvicorn in a background thread on host:port (port 0 picks a free one)."""

    def __init__(self, model: LocalModel, *, name: str = "local", host: str = "127.0.0.1",
                 port: int = 0) -> None:
        import uvicorn

        self.name = name
        config = uvicorn.Config(build_app(model, name), host=host, port=port,
                                log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self.host = host
        self.port = port

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self._server.run, name="serve-local",
                                        daemon=True)
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise OSError(f"the server could not listen on {self.host}:{self.port}")
            time.sleep(0.02)
        sock = self._server.servers[0].sockets[0]
        self.port = sock.getsockname()[1]
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C in the foreground command)."""
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
