"""WebArena-Verified on the user's deployment: the 812 tasks (or the 258-task hard subset) as
the installed `webarena-verified` package ships them, their `__SITE__` placeholders mapped to
the deployment by a site-URL file; the browser reaches only those origins. webtraj serves
nothing here: the sites are the user's. The agent's final answer becomes the agent response
the evaluators read (`formats.webarena_verified.agent_response_obj`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote, urlsplit

from webtraj.browser.config import FormLogin
from webtraj.execute.suites.protocol import ListOptions, Suite, SuiteSession, session_urls
from webtraj.model import InputError, RunInfo, Score, Task, Trajectory
from webtraj.model.jsonfile import read_json
from webtraj.model.run import RunConfig
from webtraj.store import RunStore
from webtraj.suites.webarena_verified.evaluate.sites import SiteUrls, placeholder, site_key

EVALUATORS = ("AgentResponseEvaluator", "NetworkEventEvaluator")


def read_site_urls(path: str | Path) -> dict[str, str]:
    """The site-URL file: a JSON object mapping sites or placeholders (`"shopping"`,
    `"__SHOPPING__"`) to the deployment's base URLs (http or https, no query)."""
    obj = read_json(path, expect=dict, what="site URLs")
    urls = SiteUrls.from_obj(obj, file=str(path))
    out: dict[str, str] = {}
    for site, values in urls.urls.items():
        parts = urlsplit(values[0])
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InputError(f"expected an http(s) base URL, got {values[0]!r}", file=path,
                             field=site)
        out[site] = values[0]
    return out


# The official deployment's accounts (WebArena's own setup) and each site's login page.
DEFAULT_ACCOUNTS: dict[str, dict[str, str]] = {
    "shopping": {"username": "emma.lopez@gmail.com", "password": "Password.123",
                 "login_path": "/customer/account/login/"},
    "shopping_admin": {"username": "admin", "password": "admin1234", "login_path": ""},
    "gitlab": {"username": "byteblaze", "password": "hello1234.",
               "login_path": "/users/sign_in"},
    "reddit": {"username": "MarvelsGrantMan136", "password": "test1234",
               "login_path": "/login"},
}


def read_accounts(path: str | None, urls: dict[str, str]) -> tuple[FormLogin, ...]:
    """The accounts to log in with on the deployment's sites: the official ones, each
    replaced by the file's entry for its site (`{"gitlab": {"username": ..., "password":
    ..., "login_path": "/users/sign_in"}}`; null: no login on that site)."""
    accounts: dict[str, dict[str, str] | None] = dict(DEFAULT_ACCOUNTS)
    if path:
        obj = read_json(path, expect=dict, what="accounts")
        for name, entry in obj.items():
            site = site_key(str(name))
            if entry is None:
                accounts[site] = None
                continue
            merged = {**(DEFAULT_ACCOUNTS.get(site) or {"login_path": "/login"}),
                      **(entry if isinstance(entry, dict) else {})}
            for key in ("username", "password", "login_path"):
                if not isinstance(entry, dict) or not isinstance(merged.get(key), str):
                    raise InputError("expected an object with string username, password and "
                                     "login_path (or null: no login)", file=path,
                                     field=f"{name}.{key}")
            accounts[site] = merged
    return tuple(FormLogin(site=site, login_url=urls[site] + acc["login_path"],
                           username=acc["username"], password=acc["password"])
                 for site, acc in accounts.items() if acc is not None and site in urls)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def render_task(task: Task, urls: dict[str, str]) -> Task:
    """The task with its start URL on the deployment (KeyError: a site without a URL)."""
    start = task.start_url or ""
    for site in _sites(task):
        ph = placeholder(site)
        if start.startswith(ph):
            start = urls[site] + start[len(ph):]
    if "__" in start.split("/", 1)[0]:
        raise KeyError(start)
    return task.model_copy(update={"start_url": start})


def _sites(task: Task) -> list[str]:
    sites = task.metadata.get("sites") or ([task.site] if task.site else [])
    return [site_key(str(s)) for s in sites]


def task_type(task: Task) -> str | None:
    """RETRIEVE / MUTATE / NAVIGATE, from the task's AgentResponseEvaluator."""
    for cfg in task.evaluators:
        if cfg.get("evaluator") == "AgentResponseEvaluator":
            expected = cfg.get("expected")
            if isinstance(expected, dict):
                value = expected.get("task_type", expected.get("performed_operation"))
                if isinstance(value, str):
                    return value.upper()
    return None


_URL_SAFE = ":/?#[]@!$&'()*+,;=%~"


def response_body_urls(task: Task, urls: dict[str, str]) -> tuple[str, ...]:
    """URL regexes (full match) of the responses whose bodies the task's evaluators read:
    the URLs of its NetworkEventEvaluators that check `response_content`, on the deployment
    (a `^...` URL is the regex it is; any other matches with any query string)."""
    out: list[str] = []
    for cfg in task.evaluators:
        expected = cfg.get("expected")
        if not (isinstance(expected, dict) and expected.get("response_content")):
            continue
        values = expected.get("url")
        for url in values if isinstance(values, list) else [values]:
            if not isinstance(url, str) or not url:
                continue
            if url.startswith("^"):
                pattern = url[1:].removesuffix("$")
                for site, base in urls.items():
                    pattern = pattern.replace(placeholder(site), re.escape(base))
                out.append(pattern)
                continue
            for site, base in urls.items():
                url = url.replace(placeholder(site), base)
            # as written, or percent-encoded as the browser sends it (`/f/machine learning`)
            forms = dict.fromkeys(u.rstrip("/") for u in (url, quote(url, safe=_URL_SAFE)))
            out.append(f"(?:{'|'.join(re.escape(u) for u in forms)})" + r"/?(?:[?#].*)?")
    return tuple(dict.fromkeys(out))


class WebArenaVerifiedSuite(Suite):
    name = "webarena-verified"
    summary = ("812 tasks (258 hard) of the installed webarena-verified package, run on your "
               "deployment (--site-urls FILE)")
    evaluators = EVALUATORS
    headline = ()

    def list_tasks(self, options: ListOptions) -> list[Task]:
        from webtraj.suites.webarena_verified.logs import package_tasks

        return package_tasks(self.options(options).subset or "full")

    def open(self, stack: ExitStack, store: RunStore, config: RunConfig) -> SuiteSession:
        options = self.options(config)
        if not options.site_urls_file:
            raise InputError("the webarena-verified suite runs on your deployment: give "
                             "--site-urls FILE (a JSON object such as {\"shopping\": "
                             "\"http://host:7770\", \"gitlab\": \"http://host:8023\"})",
                             field="site_urls")
        urls = read_site_urls(options.site_urls_file)
        tasks = self.list_tasks(ListOptions(suite_options=config.suite_options))
        session = SuiteSession(tasks=[], selected=True)
        if config.task_ids:
            tasks, session.unknown_ids = self.select(tasks, config.task_ids)
        for t in tasks:
            missing = [s for s in _sites(t) if s not in urls]
            if missing:
                session.problems.append(
                    f"task {t.task_id}: no URL for site(s) {', '.join(missing)} in "
                    f"{options.site_urls_file}")
                continue
            try:
                session.tasks.append(render_task(t, urls))
            except KeyError:
                session.problems.append(f"task {t.task_id}: its start URL {t.start_url!r} "
                                        "names no site of the task")
        session.served_urls = dict(urls)
        session.session_urls = session_urls(store, urls)
        session.exclusive = {t.task_id: tuple(_sites(t)) for t in session.tasks
                             if task_type(t) == "MUTATE"}
        session.response_bodies = {t.task_id: pats for t in session.tasks
                                   if (pats := response_body_urls(t, urls))}
        session.logins = read_accounts(options.accounts_file, urls)
        session.allow_origins = tuple(dict.fromkeys(origin(u) for u in urls.values()))
        return session

    def headline_value(self, task: Task, scores: Sequence[Score]) -> float | None:
        """A task passes only if every evaluator it declares does (unscored: unknown)."""
        wanted = {str(c.get("evaluator")) for c in task.evaluators}
        mine = [s for s in scores if s.evaluator.split("[", 1)[0] in wanted]
        if not mine or any(s.value is None for s in mine):
            return None
        return min(s.value for s in mine if s.value is not None)

    def finish(self, trajectory: Trajectory) -> Trajectory:
        """The agent's final answer as the agent response JSON the evaluators and the
        leaderboard read; the stop text as written stays in `metadata.stop_text`."""
        from webtraj.suites.webarena_verified.logs import agent_response_obj

        if trajectory.answer is None and trajectory.error is not None:
            return trajectory
        response = agent_response_obj(trajectory.answer)
        text = json.dumps(response, ensure_ascii=False) if response is not None else None
        return trajectory.model_copy(update={
            "answer": text,
            "metadata": {**trajectory.metadata, "stop_text": trajectory.answer}})

    def curation_judge(self, info: RunInfo) -> str:
        return "rule"
