"""The viewer's web app (Starlette): GET routes only, every page rendered by Jinja2 with
autoescape, assets served from the package. Its guards (Host check, security headers with a
Content-Security-Policy that allows no inline script, no tracebacks, files served only from a
run's trajectory folders) are `security.py`'s, so text from pages, models and files can only
ever be text."""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

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
from webtraj.view.security import (
    HostCheck,
    NoTraceback,
    SecurityHeaders,
    artifact_response,
    trajectory_files,
)
from webtraj.view.stats import run_stats

log = logging.getLogger("webtraj.view")



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
        files = trajectory_files(ref, p.get("t") or "")
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
        files = trajectory_files(ref, p.get("t") or "")
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
        files = trajectory_files(ref, p.get("t") or "")
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
        files = trajectory_files(ref, p.get("t") or "")
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
        files = trajectory_files(ref, p.get("t") or "")
        return artifact_response(files, p.get("name") or "")

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
    middleware = [Middleware(SecurityHeaders),
                  Middleware(NoTraceback, error_page=lambda message: _page(
                      "problem.html", 500, ref=None, message=message))]
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


def _first_of_task(ref: RunRef, task: str) -> str | None:
    index = connect(ref)
    if index is None:
        return None
    with index:
        ids = index.trajectories_of_task(task)
    return ids[0] if ids else None


mimetypes.add_type("text/javascript", ".js")
