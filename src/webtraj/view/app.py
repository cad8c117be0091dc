"""The viewer's web app (Starlette): GET routes only, every page rendered by Jinja2 with
autoescape, assets served from the package, and a Content-Security-Policy that allows no
inline script, so text from pages, models and files can only ever be text."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webtraj.model.errors import InputError
from webtraj.model.trajectory import Trajectory
from webtraj.report import queries as q
from webtraj.report.plot import step_plot
from webtraj.store.decisions import decisions_of
from webtraj.store.run_store import TRAJECTORY_JSON
from webtraj.view.compare import Column, align, task_table
from webtraj.view.detail import load_view, png_size
from webtraj.view.runs import Catalog, RunRef, connect, load_info, run_row
from webtraj.view.stats import run_stats

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
_env.filters["link_url"] = link_url
_env.globals["qs"] = lambda **kw: urlencode({k: v for k, v in kw.items()
                                              if v not in (None, "", False)}, doseq=True)


def _page(name: str, status: int = 200, **ctx: object) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**ctx), status_code=status)


def create_app(sources: list[Path]) -> Starlette:
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
        info = load_info(ref)
        query = q.ListQuery(site=p.get("site") or None, difficulty=p.get("difficulty") or None,
                            success=p.get("success") or None, error=p.get("error") or None,
                            unscored=p.get("unscored") == "1", q=p.get("q") or None,
                            sort=p.get("sort") if p.get("sort") in q.SORTS else "id",
                            desc=p.get("desc") == "1", page=_int(p.get("page"), 1))
        conn = connect(ref)
        if conn is None:
            return _page("run.html", ref=ref, info=info, empty=True)
        try:
            st = run_stats(ref.root, conn)
            ev = st.csr_evaluator
            rows, total = q.trajectory_page(conn, ev, query)
            ctx = dict(ref=ref, info=info, empty=False, ev=ev, evaluators=st.evaluators,
                       total_cell=st.total, cells=st.cells, constraints=st.constraints,
                       plot=step_plot(st.curve), agreement=st.agreement,
                       constraint_agreement=st.constraint_agreement, rows=rows,
                       total=total, query=query, sites=list(dict.fromkeys(
                           c.group[0] for c in st.cells if c.group[0] != "-")),
                       difficulties=sorted({c.group[1] for c in st.cells if c.group[1] != "-"}),
                       page_size=q.PAGE_SIZE, count_cap=q.COUNT_CAP)
        finally:
            conn.close()
        return _page("run.html", **ctx)

    def trajectory_page(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        tid = p.get("t") or ""
        folder = _folder(ref, tid)
        conn = connect(ref)
        try:
            ev = run_stats(ref.root, conn).csr_evaluator if conn else None
            scores = q.scores_of(conn, tid) if conn else []
            curation = decisions_of(conn, tid) if conn else []
            view = load_view(folder, scores, ev, curation)
        except InputError as exc:
            return _page("problem.html", 422, ref=ref, message=str(exc))
        finally:
            if conn:
                conn.close()
        sizes = {s.index: png_size(folder / s.screenshot) for s in view.steps if s.screenshot}
        expected = {c.name: c.value for c in view.traj.task.constraints}
        return _page("trajectory.html", ref=ref, v=view, t=view.traj, sizes=sizes,
                     expected=expected)

    def artifact(request: Request) -> Response:
        p = request.query_params
        ref = ref_or_404(p.get("r"))
        folder = _folder(ref, p.get("t") or "")
        name = p.get("name") or ""
        try:
            path = (folder / name).resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as exc:
            raise HTTPException(404, "no such file") from exc
        if not path.is_relative_to(folder) or not path.is_file() or path == folder:
            raise HTTPException(404, "no such file")
        kind = _ARTIFACT_TYPES.get(path.suffix.lower(), "text/plain; charset=utf-8")
        return FileResponse(path, media_type=kind, headers={
            "Content-Disposition": "inline", "Content-Security-Policy": "sandbox"})

    def compare_page(request: Request) -> Response:
        p = request.query_params
        refs = [ref_or_404(k) for k in dict.fromkeys(p.getlist("r"))]
        if len(refs) < 2:
            return _page("problem.html", 400, ref=None,
                         message="select two or more runs to compare")
        names, per_run, evs = [], [], []
        for ref in refs:
            try:
                names.append(load_info(ref).name or ref.key)
            except InputError:
                names.append(ref.key)
            conn = connect(ref)
            if conn is None:
                per_run.append({})
                evs.append(None)
                continue
            try:
                ev = run_stats(ref.root, conn).csr_evaluator
                evs.append(ev)
                per_run.append(q.task_outcomes(conn, ev))
            finally:
                conn.close()
        table, tallies = task_table(names, per_run)
        task = p.get("task")
        columns: list[Column] = []
        aligned, first = [], None
        if task:
            trajs: list[Trajectory | None] = []
            for ref, name, outcomes in zip(refs, names, per_run, strict=True):
                tid = _first_of_task(ref, task)
                col = Column(run_key=ref.key, run_name=name, trajectory_id=tid,
                             csr=outcomes.get(task, (None, 0))[0])
                traj = None
                if tid is not None:
                    try:
                        traj = Trajectory.load(ref.trajectories / tid / TRAJECTORY_JSON)
                    except InputError as exc:
                        col.problem = str(exc)
                trajs.append(traj)
                columns.append(col)
            aligned, first = align(trajs)
        return _page("compare.html", refs=refs, names=names, table=table, tallies=tallies,
                     task=task, columns=columns, aligned=aligned, first=first)

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        detail = getattr(exc, "detail", "not found")
        return _page("problem.html", code, ref=None, message=str(detail))

    routes = [
        Route("/", runs_page, methods=["GET"]),
        Route("/run", run_page, methods=["GET"]),
        Route("/trajectory", trajectory_page, methods=["GET"]),
        Route("/file", artifact, methods=["GET"]),
        Route("/compare", compare_page, methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("webtraj.view", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=[Middleware(SecurityHeaders)])
    return app


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


def _int(v: str | None, default: int) -> int:
    try:
        return max(int(v or default), 1)
    except ValueError:
        return default


def _folder(ref: RunRef, tid: str) -> Path:
    """A trajectory folder of the run (resolved), or 404 for anything else."""
    base = ref.trajectories.resolve()
    if not tid or "/" in tid or "\\" in tid or tid in (".", ".."):
        raise HTTPException(404, "no such trajectory")
    folder = (base / tid).resolve()
    if folder.parent != base or not folder.is_dir():
        raise HTTPException(404, "no such trajectory")
    return folder


def _first_of_task(ref: RunRef, task: str) -> str | None:
    conn = connect(ref)
    if conn is None:
        return None
    try:
        ids = q.trajectories_of_task(conn, task)
    finally:
        conn.close()
    return ids[0] if ids else None


mimetypes.add_type("text/javascript", ".js")
