"""The viewer's web app (Starlette): GET routes only, every page rendered by Jinja2 with
autoescape, assets served from the package, and a Content-Security-Policy that allows no
inline script, so text from pages, models and files can only ever be text."""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders, QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webtraj.evaluate.registry import family_of
from webtraj.formats.image_header import sniff_mime
from webtraj.model.errors import InputError
from webtraj.model.ordering import difficulty_key, group_key, natural_key
from webtraj.model.trajectory import Trajectory
from webtraj.report.html import metrics_html, usage_html
from webtraj.report.metrics import ci_text
from webtraj.report.plot import step_plot
from webtraj.store import listing
from webtraj.store.files import NotInRun, TrajectoryFiles
from webtraj.view.compare import Column, align, task_table
from webtraj.view.detail import load_trajectory, load_view, png_size
from webtraj.view.network import PAGE_SIZE as NET_PAGE_SIZE
from webtraj.view.network import STATUSES, TYPES, NetworkQuery, read_network
from webtraj.view.prompts import REBUILDABLE, RebuiltPrompt, rebuild
from webtraj.view.readable import details_html
from webtraj.view.runs import DAMAGE, Catalog, RunRef, connect, damage_text, load_info, run_row
from webtraj.view.stats import run_stats

log = logging.getLogger("webtraj.view")

CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# Artifacts are served as data: images as images, everything else as plain text.
_ARTIFACT_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                   ".webp": "image/webp"}


def fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def link_url(url: object) -> str | None:
    """The URL when it may be a link (http or https); anything else stays text."""
    if not isinstance(url, str):
        return None
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


_env = Environment(loader=PackageLoader("webtraj.view", "templates"),
                   autoescape=select_autoescape(default=True, default_for_string=True))
_env.filters["fmt"] = fmt
_env.filters["ci"] = ci_text
_env.filters["link_url"] = link_url
_env.filters["details_html"] = details_html
_env.globals["qs"] = lambda **kw: urlencode({k: v for k, v in kw.items()
                                              if v not in (None, "", False)}, doseq=True)


def _page(name: str, status: int = 200, **ctx: object) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**ctx), status_code=status)


def create_app(sources: list[Path], allowed_hosts: set[str] | None = None) -> Starlette:
    """The app over runs under `sources`; `allowed_hosts` are the Host header values it
    answers (see HostCheck), None for any (only for an app not bound to a socket)."""
    catalog = Catalog(sources)
    # Pages are plain functions: Starlette runs them in its thread pool, so a slow one (the
    # first look at a very large run) never holds up the others.

    def ref_or_404(key: str | None) -> RunRef:
        ref = catalog.get(key) if key else None
        if ref is None:
            raise HTTPException(404, "no such run")
        return ref

    def runs_page(request: Request) -> Response:
        rows = [run_row(r) for r in catalog.refs()]
        return _page("runs.html", rows=rows, sources=catalog.sources)

    def run_page(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        sort = p.get("sort") or "id"
        if sort not in listing.SORTS:
            raise HTTPException(400, f"sort must be one of {', '.join(listing.SORTS)}")
        choice = {name: _choice(p, name, allowed) for name, allowed in listing.CHOICES.items()}
        query = listing.ListQuery(
            site=p.get("site") or None, difficulty=p.get("difficulty") or None,
            success=choice["success"], error=choice["error"],
            unscored=choice["unscored"] is not None, q=p.get("q") or None, sort=sort,
            desc=choice["desc"] is not None, page=_page_number(p, "page"))
        try:
            info = load_info(ref)
            index = connect(ref)
            if index is None:
                return _page("run.html", ref=ref, info=info, empty=True)
            with index:
                st = run_stats(ref.root, index)
                ev = st.csr_evaluator
                rows, total = index.trajectory_page(ev, query)
        except DAMAGE as exc:
            return _damaged(ref, exc)
        cells = sorted(st.cells, key=lambda c: group_key(c.group))
        # What the headline evaluator's value is called (CSR, success, pass, ...).
        value_label = family_of(ev).value_label if ev else "score"
        ctx = dict(ref=ref, info=info, empty=False, ev=ev, evaluators=st.evaluators,
                   value_label=value_label,
                   total_cell=st.total, cells=cells, constraints=st.constraints,
                   plot=step_plot(st.curve), curve=st.curve, agreement=st.agreement,
                   constraint_agreement=st.constraint_agreement, rows=rows,
                   total=total, query=query,
                   sites=sorted({c.group[0] for c in st.cells if c.group[0] != "-"},
                                key=natural_key),
                   difficulties=sorted({c.group[1] for c in st.cells if c.group[1] != "-"},
                                       key=difficulty_key),
                   page_size=listing.PAGE_SIZE, count_cap=listing.COUNT_CAP,
                   natural_limit=listing.NATURAL_LIMIT, metrics_html=metrics_html(st.metrics),
                   usage_html=usage_html(info))
        return _page("run.html", **ctx)

    def trajectory_page(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        files = _files(ref, p.get("t") or "")
        try:
            index = connect(ref)
            try:
                ev = run_stats(ref.root, index).csr_evaluator if index else None
                scores = index.scores_of(files.trajectory_id) if index else []
                curation = index.decisions(files.trajectory_id) if index else []
            finally:
                if index:
                    index.close()
        except DAMAGE as exc:
            return _damaged(ref, exc)
        try:
            view = load_view(files, scores, ev, curation)
        except DAMAGE as exc:
            return _unreadable(ref, files, exc)
        sizes = {s.index: png_size(files, s.screenshot) for s in view.steps if s.screenshot}
        expected = {c.name: c.value for c in view.traj.task.constraints}
        return _page("trajectory.html", ref=ref, v=view, t=view.traj, sizes=sizes,
                     expected=expected, prompt_agents=REBUILDABLE)

    def network_page(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        files = _files(ref, p.get("t") or "")
        kind, status = _choice(p, "type", TYPES), _choice(p, "status", STATUSES)
        pg = _page_number(p, "pg") if p.get("pg") else None
        number = _page_number(p, "p")
        try:
            traj = load_trajectory(files)
        except DAMAGE as exc:
            return _unreadable(ref, files, exc)
        net = read_network(traj, files)
        groups = net.groups()
        if pg is not None and pg > len(groups):
            raise HTTPException(400, f"pg must be a page group from 1 to {len(groups)}")
        query = NetworkQuery(page=groups[pg - 1].page if pg else None, kind=kind,
                             status=status, q=p.get("q") or None, number=number)
        rows, matching = query.select(net)
        pages = max((matching + NET_PAGE_SIZE - 1) // NET_PAGE_SIZE, 1)
        return _page("network.html", ref=ref, t=traj, net=net, groups=groups, pg=pg,
                     rows=rows, matching=matching, query=query, pages=pages)

    def step_prompt(ref: RunRef, files: TrajectoryFiles, traj: Trajectory,
                    p: QueryParams) -> tuple[int, RebuiltPrompt | None]:
        """The step `i` of the query and its rebuilt prompt."""
        index = _page_number(p, "i") if p.get("i") not in (None, "", "0") else 0
        if index >= len(traj.steps):
            raise HTTPException(400, f"i must be a step index from 0 to {len(traj.steps) - 1}")
        try:
            info = load_info(ref)
        except DAMAGE:
            info = None
        return index, rebuild(traj, index, info, files)

    def prompt_page(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        files = _files(ref, p.get("t") or "")
        try:
            traj = load_trajectory(files)
        except DAMAGE as exc:
            return _unreadable(ref, files, exc)
        index, prompt = step_prompt(ref, files, traj, p)
        return _page("prompt.html", ref=ref, t=traj, index=index, step=traj.steps[index],
                     prompt=prompt)

    def prompt_image(request: Request) -> Response:
        """The image a step's prompt carried, as the model got it (rebuilt by the agent's
        rule from the stored screenshot)."""
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        files = _files(ref, p.get("t") or "")
        try:
            traj = load_trajectory(files)
        except DAMAGE:
            raise HTTPException(404, "this trajectory cannot be read") from None
        _, prompt = step_prompt(ref, files, traj, p)
        if prompt is None or prompt.image is None:
            raise HTTPException(404, "this step's prompt carried no image")
        return Response(prompt.image, media_type=sniff_mime(prompt.image), headers={
            "Content-Security-Policy": "sandbox", "Cache-Control": "no-store"})

    def artifact(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        files = _files(ref, p.get("t") or "")
        name = p.get("name") or ""
        try:
            body, size = files.chunks(name)
        except (NotInRun, OSError) as exc:
            log.info("viewer: refused /file %r of %s: %s", name, files.trajectory_id, exc)
            raise HTTPException(404, "no such file") from None
        suffix = Path(name).suffix.lower()
        kind = _ARTIFACT_TYPES.get(suffix, "text/plain; charset=utf-8")
        return StreamingResponse(body, media_type=kind, headers={
            "Content-Length": str(size), "Content-Disposition": "inline",
            "Content-Security-Policy": "sandbox"})

    def compare_page(request: Request) -> Response:
        p = request.query_params
        refs = [ref_or_404(k) for k in dict.fromkeys(p.getlist("r"))]
        if len(refs) < 2:
            return _page("problem.html", 400, ref=None,
                         message="select two or more runs to compare")
        names, per_run, evs, problems = [], [], [], []
        headlines: list[str | None] = []
        for ref in refs:
            try:
                names.append(load_info(ref).name or ref.key)
            except InputError:
                names.append(ref.key)
            try:
                index = connect(ref)
                if index is None:
                    per_run.append({})
                    evs.append(None)
                    headlines.append(None)
                    continue
                with index:
                    st = run_stats(ref.root, index)
                    ev = st.csr_evaluator
                    outcomes = index.task_outcomes(ev)
            except DAMAGE as exc:
                problems.append(f"{ref.key}: {damage_text(exc)}")
                per_run.append({})
                evs.append(None)
                headlines.append(None)
                continue
            headlines.append(f"{st.metrics.headline_text()} · {st.metrics.episode_errors} "
                             "episode(s) ended in an error")
            evs.append(ev)
            per_run.append(outcomes)
        table, tallies = task_table(names, per_run)
        task = p.get("task")
        columns: list[Column] = []
        aligned, first = [], None
        if task:
            trajs: list[Trajectory | None] = []
            for ref, name, outcomes, ev in zip(refs, names, per_run, evs, strict=True):
                try:
                    tid = _first_of_task(ref, task)
                except DAMAGE:
                    tid = None
                col = Column(run_key=ref.key, run_name=name, trajectory_id=tid, evaluator=ev,
                             csr=outcomes.get(task, (None, 0))[0])
                traj = None
                if tid is not None:
                    try:
                        traj = load_trajectory(TrajectoryFiles(ref.root, tid))
                    except (InputError, NotInRun) as exc:
                        col.problem = str(exc)
                trajs.append(traj)
                columns.append(col)
            aligned, first = align(trajs)
        return _page("compare.html", refs=refs, names=names, table=table, tallies=tallies,
                     headlines=headlines, evaluators=evs,
                     task=task, columns=columns, aligned=aligned, first=first,
                     problems=problems)

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        detail = getattr(exc, "detail", "not found")
        return _page("problem.html", code, ref=None, message=str(detail))

    routes = [
        Route("/", runs_page, methods=["GET"]),
        Route("/run", run_page, methods=["GET"]),
        Route("/trajectory", trajectory_page, methods=["GET"]),
        Route("/network", network_page, methods=["GET"]),
        Route("/prompt", prompt_page, methods=["GET"]),
        Route("/prompt-image", prompt_image, methods=["GET"]),
        Route("/file", artifact, methods=["GET"]),
        Route("/compare", compare_page, methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("webtraj.view", "static")]), name="static"),
    ]
    # Outermost first: the Host check answers before anything reads a run; NoTraceback
    # turns any failure left into a one-line log entry and a 500 page.
    middleware = [Middleware(SecurityHeaders), Middleware(NoTraceback)]
    if allowed_hosts is not None:
        middleware.insert(1, Middleware(HostCheck, allowed=allowed_hosts))
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=middleware)
    return app


def _damaged(ref: RunRef, exc: BaseException) -> Response:
    """The page for a run whose files cannot be read: the reason, never a traceback."""
    log.warning("viewer: run %s is damaged: %s", ref.key, damage_text(exc))
    return _page("problem.html", 422, ref=ref,
                 message=f"this run is damaged: {damage_text(exc)}")


def _unreadable(ref: RunRef, files: TrajectoryFiles, exc: BaseException) -> Response:
    """The page for one trajectory that cannot be read (the run's other pages still work)."""
    log.warning("viewer: trajectory %s of run %s cannot be read: %s", files.trajectory_id,
                ref.key, damage_text(exc))
    return _page("problem.html", 422, ref=ref,
                 message=f"this trajectory cannot be read: {damage_text(exc)}")


class HostCheck:
    """Answers only requests whose Host header names the viewer's own address (the bound one,
    localhost, 127.0.0.1 or [::1], with the port): a web page the user visits that rebinds
    its own name to 127.0.0.1 (DNS rebinding) sends its own name as Host and gets 403."""

    def __init__(self, app: ASGIApp, allowed: set[str]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((v for k, v in scope["headers"] if k == b"host"), b"")
            if host.decode("latin-1").lower() not in self.allowed:
                response = PlainTextResponse("403: this viewer answers only requests for "
                                             "its own address", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class NoTraceback:
    """Any error a page did not handle becomes a 500 page and one log line (what failed and
    why): a run folder or a URL never puts a traceback in the viewer's log."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:  # noqa: BLE001 - the log line names it
            log.error("viewer: GET %s failed: %s: %s", scope.get("path", ""),
                      type(exc).__name__, exc)
            if not started:
                await _page("problem.html", 500, ref=None,
                            message=f"this page failed: {type(exc).__name__}")(
                    scope, receive, send)


class SecurityHeaders:
    """Adds the CSP (unless a route set its own) and no-sniff / no-referrer to every reply."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
            await send(message)

        await self.app(scope, receive, send_with_headers)


# The largest page number a query may ask for (SQLite offsets are 64-bit; a page past the
# end is simply empty).
MAX_PAGE = 10_000_000


def _page_number(p: QueryParams, name: str) -> int:
    """A 1-based page number from the query (1 when absent); anything else is a 400."""
    raw = p.get(name)
    if raw in (None, ""):
        return 1
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_PAGE:
        raise HTTPException(400, f"{name} must be a whole number from 1 to {MAX_PAGE}")
    return int(raw)


def _choice(p: QueryParams, name: str, allowed: tuple[str, ...]) -> str | None:
    """One of `allowed` (None when absent or empty); anything else is a 400."""
    raw = p.get(name) or None
    if raw is not None and raw not in allowed:
        raise HTTPException(400, f"{name} must be one of {', '.join(allowed)}")
    return raw


def _files(ref: RunRef, tid: str) -> TrajectoryFiles:
    """A trajectory folder of the run reached without a link, or 404 for anything else."""
    try:
        files = TrajectoryFiles(ref.root, tid)
        files.check()
    except NotInRun as exc:
        log.info("viewer: refused trajectory %r of %s: %s", tid, ref.key, exc)
        raise HTTPException(404, "no such trajectory") from None
    return files


def _first_of_task(ref: RunRef, task: str) -> str | None:
    index = connect(ref)
    if index is None:
        return None
    with index:
        ids = index.trajectories_of_task(task)
    return ids[0] if ids else None


mimetypes.add_type("text/javascript", ".js")
