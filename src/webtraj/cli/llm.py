"""`webtraj llm ...`: model endpoint utilities: cache, endpoint check, scripted test server.

Commands that call a model take `--llm` and `--no-cache` from `cli.model_options` (one text
for every command) and build their client with `LLMClient.from_cli(llm, no_cache=no_cache)`."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.table import Table

from webtraj.cli.common import console, esc, fail, print_json
from webtraj.cli.model_options import NO_CACHE_HELP, llm_help
from webtraj.model.errors import InputError

LLMSpecOpt = Annotated[str | None, typer.Option("--llm", help=llm_help("this command"))]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help=NO_CACHE_HELP)]
CacheOpt = Annotated[Path | None, typer.Option(
    "--cache", help="Cache database (default: WEBTRAJ_LLM_CACHE, the config's cache, or "
                    "~/.cache/webtraj/llm-cache.sqlite).")]

app = typer.Typer(no_args_is_help=True)
cache_app = typer.Typer(no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@app.callback()
def _llm() -> None:
    """Language-model endpoint utilities: reply cache, endpoint check, scripted test server.

    Example: webtraj llm cache stats
    """


@cache_app.callback()
def _cache() -> None:
    """Inspect or clear the LLM reply cache (replies are cached by content, so re-running an
    evaluation makes no calls).

    Example: webtraj llm cache clear --older-than 30 --yes
    """


def _cache_path(path: Path | None) -> Path:
    from webtraj.llm.config import default_cache_path, load_config

    if path is not None:
        return path
    try:
        return default_cache_path(load_config())
    except InputError as exc:
        raise fail(str(exc)) from None


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M") if ts else "-"


@cache_app.command("stats")
def cache_stats(
    cache: CacheOpt = None,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show how many replies are cached, per model, and the cache's size on disk.

    Example: webtraj llm cache stats --json
    """
    from webtraj.llm.cache import LLMCache

    path = _cache_path(cache)
    if not path.exists():
        if as_json:
            print_json({"path": str(path), "entries": 0, "size_bytes": 0, "models": {}})
        else:
            console.print(f"{esc(path)}: no cache yet", highlight=False)
        return
    try:
        with LLMCache(path) as c:
            stats = c.stats()
    except InputError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print_json(stats.model_dump(mode="json"))
        return
    console.print(f"[bold]{esc(stats.path)}[/]  {stats.entries} replies, "
                  f"{stats.size_bytes / 1e6:.1f} MB, {_when(stats.oldest)} .. "
                  f"{_when(stats.newest)}", highlight=False)
    if stats.models:
        table = Table()
        table.add_column("model")
        table.add_column("replies", justify="right")
        for model, n in stats.models.items():
            table.add_row(esc(model), str(n))
        console.print(table)


@cache_app.command("clear")
def cache_clear(
    cache: CacheOpt = None,
    model: str | None = typer.Option(None, "--model", help="Only this model's replies."),
    older_than: float | None = typer.Option(None, "--older-than", min=0,
                                            help="Only replies older than this many days."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Delete cached replies (all, one model's, or old ones). Re-running an evaluation then
    calls the model again.

    Example: webtraj llm cache clear --model gpt-4o-mini --older-than 30 --yes
    """
    from webtraj.llm.cache import LLMCache

    path = _cache_path(cache)
    if not path.exists():
        console.print(f"{esc(path)}: no cache, nothing to clear", highlight=False)
        return
    what = "all cached replies" if model is None and older_than is None else "matching replies"
    if not yes and not typer.confirm(f"Delete {what} from {path}?"):
        raise typer.Exit(1)
    try:
        with LLMCache(path) as c:
            n = c.clear(model=model,
                        older_than_s=None if older_than is None else older_than * 86400)
    except InputError as exc:
        raise fail(str(exc)) from None
    console.print(f"deleted {n} cached repl{'y' if n == 1 else 'ies'} from {esc(path)}",
                  highlight=False)


@app.command("check")
def check(
    llm: LLMSpecOpt = None,
    prompt: str = typer.Option("Reply with the single word: ready", "--prompt",
                               help="What to send."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Resolve the model spec and send one uncached call, to check an endpoint works.

    Example: webtraj llm check --llm base_url=http://127.0.0.1:8000/v1,model=qwen2.5-7b
    """
    from webtraj.llm.client import LLMClient
    from webtraj.llm.errors import LLMError

    try:
        client = LLMClient.from_cli(llm, no_cache=True)
    except InputError as exc:
        raise fail(str(exc)) from None
    t0 = time.perf_counter()
    try:
        comp = client.run_sync(lambda c: c.chat(prompt, use_cache=False))
    except LLMError as exc:
        raise fail(str(exc)) from None
    out = {**client.spec.describe(), "reply": comp.text, "latency_s": time.perf_counter() - t0,
           "prompt_tokens": comp.prompt_tokens, "completion_tokens": comp.completion_tokens,
           "attempts": comp.attempts}
    if as_json:
        print_json(out)
    else:
        for k, v in out.items():
            console.print(f"[bold]{k}[/]: {esc(v)}", highlight=False)


@app.command("scripted-server")
def scripted_server(
    rules: Path | None = typer.Option(
        None, "--rules", help='JSON list of rules: [{"contains"|"regex": ..., "reply": ...}].'),
    default: str | None = typer.Option(None, "--default",
                                       help="Reply for requests no rule matches."),
    echo: bool = typer.Option(False, "--echo", help="Reply 'echo: <last user message>' to "
                                                    "requests no rule matches."),
    port: int = typer.Option(8000, "--port", help="Port on 127.0.0.1."),
    delay: float = typer.Option(0.0, "--delay", min=0, help="Seconds before every reply."),
) -> None:
    """Serve a scripted OpenAI-compatible endpoint on 127.0.0.1 for offline pipeline tests.
    It is a test double that answers from rules, not a language model.

    Example: webtraj llm scripted-server --rules rules.json --default '{"ok": true}' --port 8000
    """
    from webtraj.testing import Rule, ScriptedLLMServer

    loaded: list[Rule] = []
    if rules is not None:
        try:
            data = orjson.loads(rules.read_bytes())
            if not isinstance(data, list):
                raise InputError("expected a JSON list of rules", file=rules)
            for i, r in enumerate(data):
                if not isinstance(r, dict) or not isinstance(r.get("reply"), str):
                    raise InputError("each rule needs a string 'reply'", file=rules, record=i)
                extra = set(r) - {"reply", "contains", "regex", "times", "delay"}
                if extra:
                    raise InputError(f"unknown keys {sorted(extra)}", file=rules, record=i)
                loaded.append(Rule(**r))
        except OSError as exc:
            raise fail(f"{rules}: {exc.strerror}") from None
        except orjson.JSONDecodeError as exc:
            raise fail(f"{rules}: invalid JSON: {exc}") from None
        except InputError as exc:
            raise fail(str(exc)) from None
    fallback = (lambda r: f"echo: {r.last_user}") if echo else default
    srv = ScriptedLLMServer(loaded, default=fallback, delay=delay, port=port)
    try:
        srv.start()
    except OSError as exc:
        raise fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    console.print(f"scripted LLM test server at {esc(srv.base_url)} ({len(loaded)} rules; "
                  "request count at /_scripted/stats); Ctrl-C to stop", highlight=False)
    try:
        asyncio.run(_wait_forever())
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
        console.print(f"served {srv.request_count} requests")


async def _wait_forever() -> None:
    await asyncio.Event().wait()


@app.command("serve-local")
def serve_local(
    model: str = typer.Option(..., "--model", help="Base model: a Hugging Face folder or id "
                              "(or merged weights from webtraj train --merge)."),
    adapter: Path | None = typer.Option(None, "--adapter", help="LoRA adapter folder "
                                        "(OUT/adapter of webtraj train)."),
    name: str = typer.Option("student", "--name", help="Model name clients ask for."),
    port: int = typer.Option(8000, "--port", help="Port on 127.0.0.1."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
) -> None:
    """Serve a local Hugging Face model on an OpenAI-compatible /v1/chat/completions
    endpoint (transformers generation, greedy unless temperature > 0), for the llm and
    mindact agents and the judges. For large models use vLLM (see docs/training.md).

    Example: webtraj llm serve-local --model Qwen/Qwen2.5-7B-Instruct --adapter q7/adapter
    """
    from rich.markup import escape

    try:
        from webtraj.train.local_model import LocalModel
        from webtraj.train.serve import LocalServer
    except ImportError as exc:
        raise fail(f"serve-local needs the train extra: pip install 'webtraj[train]' "
                   f"({escape(str(exc))})") from None
    try:
        loaded = LocalModel(model, adapter)
    except InputError as exc:
        raise fail(escape(str(exc))) from None
    srv = LocalServer(loaded, name=name, host=host, port=port)
    try:
        srv.start()
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {escape(str(exc))}") from None
    console.print(f"serving {escape(name)} at {srv.base_url}; use --llm "
                  f"base_url={srv.base_url},model={escape(name)}; Ctrl-C to stop",
                  highlight=False)
    try:
        srv.wait()
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
