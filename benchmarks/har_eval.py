"""Benchmark: evaluate a ~100 MB HAR (~50,000 entries) with a NetworkEventEvaluator config.

Targets: <= 3 s, peak memory <= 3x the file size, and <= 2.5x the time of a bare
`orjson.loads` of the file (the floor, measured in the same run). Each measurement
runs in a fresh child process; peak memory is the growth of its peak RSS (the
memory-mapped file's pages count once they are touched).

    .venv/bin/python benchmarks/har_eval.py [--entries 50000] [--keep PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

SITE = "http://shop.bench:7770"
TASK = {
    "task_id": 1, "sites": ["shopping"],
    "eval": [
        {"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
         "expected": {"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": None}},
        {"evaluator": "NetworkEventEvaluator",
         "ignored_query_params_patterns": ["^_"],
         "expected": {"url": "__SHOPPING__/checkout/cart/add", "http_method": "POST",
                      "headers": {"referer": "__SHOPPING__/product/777"},
                      "post_data": {"product": "777", "qty": "2"}}},
    ],
}
ANSWER = '{"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": null}'


def synth_entry(i: int, rng: random.Random) -> dict:
    kind = rng.random()
    method, post = "GET", None
    if kind < 0.45:
        path = f"/static/v1/{'css' if i % 2 else 'js'}/bundle-{i % 300}.{'css' if i % 2 else 'js'}"
    elif kind < 0.70:
        path = f"/product/{rng.randrange(5000)}?_={i}&color=red"
    elif kind < 0.90:
        path, method = f"/api/v1/items/{rng.randrange(5000)}?page={i % 50}", "GET"
    else:
        path, method = "/checkout/cart/add", "POST"
        post = {"mimeType": "application/x-www-form-urlencoded",
                "text": f"product={rng.randrange(1000)}&qty={rng.randrange(1, 5)}&form_key=k{i}"}
    headers = [{"name": n, "value": v} for n, v in (
        ("Host", "shop.bench:7770"), ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"),
        ("Accept", "text/html,application/xhtml+xml" if kind < 0.7 else "application/json"),
        ("Accept-Language", "en-US,en;q=0.9"), ("Accept-Encoding", "gzip, deflate"),
        ("Referer", f"{SITE}/product/{rng.randrange(5000)}"), ("Connection", "keep-alive"),
        ("Cookie", f"session={rng.getrandbits(64):x}; PHPSESSID={rng.getrandbits(64):x}"),
        ("sec-fetch-dest", "document" if kind < 0.7 else "empty"),
        ("sec-fetch-mode", "navigate" if kind < 0.7 else "cors"))]
    request = {"method": method, "url": SITE + path, "httpVersion": "HTTP/1.1",
               "headers": headers, "queryString": [], "cookies": [], "headersSize": -1,
               "bodySize": 0}
    if post:
        request["postData"] = post
    body = "x" * rng.randrange(600, 1400)
    response = {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "text/html; charset=UTF-8"},
                            {"name": "Cache-Control", "value": "max-age=0"}],
                "cookies": [], "redirectURL": "", "headersSize": -1, "bodySize": len(body),
                "content": {"size": len(body), "mimeType": "text/html", "text": body}}
    return {"startedDateTime": "2025-01-01T00:00:00.000Z", "time": 12.5, "request": request,
            "response": response, "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 2}}


def synthesize(path: Path, n: int) -> None:
    rng = random.Random(7)
    entries = [synth_entry(i, rng) for i in range(n)]
    target = entries[-100]  # the request the task expects, near the end
    target["request"].update(method="POST", url=SITE + "/checkout/cart/add",
                             postData={"mimeType": "application/x-www-form-urlencoded",
                                       "text": "product=777&qty=2&form_key=abc"})
    target["request"]["headers"][5]["value"] = SITE + "/product/777"
    path.write_bytes(orjson.dumps({"log": {"version": "1.2", "creator": {"name": "bench"},
                                           "entries": entries}}))


def _peak_rss() -> int:
    """Peak RSS of this process image (VmHWM; ru_maxrss would include the parent's, which
    a child inherits across fork)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(mode: str, path: str) -> None:
    """Runs in a fresh process: one measurement, printed as JSON."""
    from webtraj.suites.webarena_verified.evaluate import SiteUrls, evaluate_task
    from webtraj.suites.webarena_verified.evaluate.events import scan_events

    urls = SiteUrls({"shopping": SITE})
    before = _peak_rss()
    t0 = time.perf_counter()
    if mode == "floor":
        data = orjson.loads(Path(path).read_bytes())
        status = "success" if data else "failure"
    else:
        events, close = scan_events(path)
        try:
            verdict = evaluate_task(TASK, site_urls=urls, entries=events, agent_response=ANSWER)
        finally:
            close()
        status = verdict.status.value
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "peak_growth": _peak_rss() - before,
                      "status": status}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=50_000)
    ap.add_argument("--keep", type=Path, help="write the synthetic HAR here and keep it")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.har"
        synthesize(path, args.entries)
        size = path.stat().st_size
        floors, runs = [], []
        for _ in range(args.repeat):  # interleaved, so machine load affects both alike
            floors.append(_run("floor", path))
            runs.append(_run("eval", path))
        floor = min(r["seconds"] for r in floors)
        floor_peak = max(r["peak_growth"] for r in floors)
        best = min(r["seconds"] for r in runs)
        peak = max(r["peak_growth"] for r in runs)
        assert all(r["status"] == "success" for r in runs), runs
        print(f"HAR: {size / 1e6:.1f} MB, {args.entries} entries")
        print(f"floor (read + orjson.loads of the file, fresh process): {floor:.3f} s, "
              f"peak memory growth {floor_peak / 1e6:.0f} MB ({floor_peak / size:.2f}x)")
        print(f"evaluate (read + parse + check + network config): {best:.3f} s "
              f"(target <= 3 s) -> {'ok' if best <= 3 else 'OVER'}")
        print(f"ratio to floor: {best / floor:.2f}x (target <= 2.5x) -> "
              f"{'ok' if best / floor <= 2.5 else 'OVER'}")
        print(f"peak memory growth: {peak / 1e6:.1f} MB = {peak / size:.2f}x file size "
              f"(target <= 3x) -> {'ok' if peak / size <= 3 else 'OVER'}")


def _run(mode: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


if __name__ == "__main__":
    main()
