"""Helpers for the WebArena-Verified tests: HAR entry builders and one-call evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webtraj.suites.webarena_verified.evaluate import SiteUrls, evaluate_task

ADMIN = "http://shop.test:7780/admin"
SHOP = "http://shop.test:7770"
GITLAB = "http://git.test:8023"
URLS = {"shopping_admin": ADMIN, "__SHOPPING__": SHOP, "gitlab": GITLAB}

NAV_HEADERS = {"sec-fetch-dest": "document", "sec-fetch-mode": "navigate",
               "sec-fetch-user": "?1", "accept": "text/html,application/xhtml+xml"}


def entry(url: str, method: str = "GET", status: int = 200, *, headers: dict | None = None,
          form: dict | str | None = None, json_body: Any = None, mime: str | None = None,
          body: str | None = None, content: Any = None, content_mime: str = "application/json",
          cookies: dict | None = None, nav: bool = False) -> dict[str, Any]:
    """One HAR entry. `nav=True` adds the headers of a user navigation."""
    hdrs = dict(NAV_HEADERS if nav else {"accept": "*/*"})
    hdrs.update(headers or {})
    req: dict[str, Any] = {"method": method, "url": url,
                           "headers": [{"name": k, "value": v} for k, v in hdrs.items()]}
    if form is not None:
        from urllib.parse import urlencode

        text = form if isinstance(form, str) else urlencode(form)
        req["postData"] = {"mimeType": "application/x-www-form-urlencoded", "text": text}
    if json_body is not None:
        req["postData"] = {"mimeType": "application/json", "text": json.dumps(json_body)}
    if body is not None:
        req["postData"] = {"mimeType": mime or "text/plain", "text": body}
    jar = [{"name": k, "value": v} for k, v in (cookies or {}).items()]
    resp: dict[str, Any] = {"status": status, "redirectURL": "", "headers": [], "cookies": jar,
                            "content": {"mimeType": content_mime,
                                        "text": content if isinstance(content, str)
                                        else json.dumps(content) if content is not None else ""}}
    return {"request": req, "response": resp}


class Wav:
    """Evaluate one evaluator config against entries / an agent response."""

    site_urls = SiteUrls(URLS)

    def task(self, *configs: dict, task_type: str = "MUTATE",
             sites: tuple[str, ...] = ("shopping_admin", "shopping")) -> dict[str, Any]:
        response_cfg = {"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
                        "expected": {"task_type": task_type, "status": "SUCCESS",
                                     "retrieved_data": None}}
        has_response = any(c.get("evaluator") == "AgentResponseEvaluator" for c in configs)
        return {"task_id": 1, "sites": list(sites),
                "eval": list(configs) if has_response else [response_cfg, *configs]}

    def network(self, config: dict, entries: list[dict], *, task_type: str = "MUTATE",
                sites: tuple[str, ...] = ("shopping_admin", "shopping")):
        """The NetworkEventEvaluator verdict for one config."""
        cfg = {"evaluator": "NetworkEventEvaluator", **config}
        answer = f'{{"task_type": "{task_type}", "status": "SUCCESS"}}'
        verdict = evaluate_task(self.task(cfg, task_type=task_type, sites=sites),
                                site_urls=self.site_urls, entries=entries, agent_response=answer)
        assert verdict.evaluators, verdict.error
        return verdict.evaluators[-1]

    def status(self, config: dict, entries: list[dict], **kw: Any) -> str:
        return self.network(config, entries, **kw).status.value

    def response(self, expected: dict, answer: Any, *, schema: dict | None = None,
                 ordered: bool | None = None):
        cfg: dict[str, Any] = {"evaluator": "AgentResponseEvaluator",
                               "results_schema": schema or {"type": "null"},
                               "expected": expected}
        if ordered is not None:
            cfg["ordered"] = ordered
        verdict = evaluate_task(self.task(cfg), site_urls=self.site_urls,
                                entries=[entry(SHOP + "/")], agent_response=answer)
        assert verdict.evaluators, verdict.error
        return verdict.evaluators[0]


@pytest.fixture
def wav() -> Wav:
    return Wav()


@pytest.fixture
def mk():
    """The HAR entry builder."""
    return entry


@pytest.fixture(scope="session")
def wav_fixtures() -> Path:
    """../shared/fixtures/webarena-verified beside the repository checkout."""
    root = Path(__file__).resolve().parents[2]
    path = root.parent / "shared" / "fixtures" / "webarena-verified"
    if not path.is_dir():
        pytest.skip(f"shared fixtures not found at {path}")
    return path
