"""WebArena-Verified's own commands, which its package contributes to the CLI through the
suite registry (`webtraj.model.suite_registry`, entry `commands`): `webtraj import
webarena-verified` (agent logs into a run), `webtraj export webarena-verified` (a run as a
leaderboard submission) and `webtraj eval webarena-verified` (score agent logs with the
tasks' own evaluators).

These are CLI code kept with the suite they belong to: they use the CLI's helpers (the
import contract allows `webtraj.suites.*.commands` that, and nothing else of a suite)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from webtraj.cli.common import console, err_console, esc, fail
from webtraj.cli.importers import _JSON_HELP, _OUT_HELP, _REPLACE_HELP, _Session
from webtraj.formats.local_files import LocalFiles
from webtraj.model import InputError
from webtraj.model.jsonfile import read_json
from webtraj.suites.webarena_verified.logs import IMPORTED_AGENT


def _read_json(path: Path, what: str) -> object:
    try:
        return read_json(path, what=what)
    except InputError as exc:
        raise fail(f"{exc} (reading {what})") from None


def _task_ids(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [t.strip() for v in values for t in v.split(",") if t.strip()]


def add_commands(groups: dict[str, typer.Typer]) -> None:
    """Add the suite's commands to the CLI's `import`, `export` and `eval` groups."""
    groups["import"].command("webarena-verified")(import_logs)
    groups["export"].command("webarena-verified")(export_submission)
    groups["eval"].command("webarena-verified")(eval_logs)


def import_logs(
    dataset: Path = typer.Option(None, "--dataset", help="WebArena-Verified tasks JSON (a "
                                 "list); default: the installed webarena-verified package's."),
    logs: Path = typer.Option(..., "--logs", help="Folder of <task_id>/network.har and "
                              "<task_id>/agent_response.json."),
    out: Path = typer.Option(..., "--out", help=_OUT_HELP),
    site_urls: Path = typer.Option(None, "--site-urls", help="JSON mapping sites or "
                                   "placeholders to base URLs, kept in the run so that "
                                   "`webtraj eval --run` can score the logs."),
    agent: str = typer.Option(IMPORTED_AGENT, "--agent", help="Agent name to record."),
    replace: bool = typer.Option(False, "--replace", help=_REPLACE_HELP),
    as_json: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Import WebArena-Verified agent logs (answer + HAR, no steps), one per log folder.

    Example: webtraj import webarena-verified --dataset d.json --logs L --out runs/wav
    """
    from webtraj.suites.webarena_verified.logs import (
        package_dataset_path,
        redacted_checks,
        task_from_obj,
        trajectory_from_log,
    )

    try:
        dataset = dataset if dataset is not None else package_dataset_path()
        data = read_json(dataset, expect=list, what="tasks")
    except InputError as exc:
        raise fail(str(exc)) from None
    if not logs.is_dir():
        raise fail(f"{logs}: not a folder")
    urls = None
    if site_urls is not None:
        from webtraj.suites.webarena_verified.evaluate import SiteUrls

        try:  # checked as `webtraj eval webarena-verified` checks it
            urls = read_json(site_urls, expect=dict, what="site -> base URL")
            SiteUrls.from_obj(urls, file=str(site_urls))
        except InputError as exc:
            raise fail(str(exc)) from None
        several = [k for k, v in urls.items() if not isinstance(v, str)]
        if several:
            raise fail(f"{site_urls}: field '{several[0]}': a run keeps one base URL per site; "
                       "give a single URL")
    positions = {str(t.get("task_id")): i for i, t in enumerate(data) if isinstance(t, dict)}
    session = _Session(out, "webarena-verified", replace=replace, site_urls=urls)
    files = LocalFiles([logs])
    folders = sorted((p for p in logs.iterdir() if p.is_dir()),
                     key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit()
                                    else 0, p.name))
    for folder in folders:
        pos = positions.get(folder.name)
        if pos is None:
            session.log.error(f"no task with id {folder.name} in {dataset}", file=folder)
            continue
        try:
            task = task_from_obj(data[pos], file=dataset, record=pos)
            item = trajectory_from_log(task, folder, agent=agent, files=files)
        except InputError as exc:
            session.log.errors.append(exc)
            continue
        lost = redacted_checks(task)
        if lost:
            session.log.warn(f"the task checks {', '.join(lost)}, which a run stores "
                             "redacted: `webtraj eval --run` leaves it unscored; score these "
                             "logs with `webtraj eval webarena-verified`", file=folder,
                             record=task.task_id, field="eval")
        session.add(item)
    session.finish(as_json, logs)


def export_submission(
    run: Path = typer.Argument(..., help="Run directory (a webarena-verified run or an "
                               "imported one)."),
    out: Path = typer.Option(..., "--out", help="Submission folder to write."),
    agent: str = typer.Option(None, "--agent", help="Whose trajectories (default: the run's "
                              "only agent)."),
) -> None:
    """Write a run in the WebArena-Verified leaderboard layout: `<task_id>/agent_response.json`
    and `<task_id>/network.har` (static-asset entries trimmed as the reference trims them),
    plus `site_urls.json` naming the deployment. One trajectory per task (the first trial
    without an infrastructure error, else the first).

    Example: webtraj export webarena-verified runs/wav --out submission && webtraj eval
    webarena-verified --logs submission
    """
    from webtraj.store import RunStore
    from webtraj.suites.webarena_verified.evaluate.submission import write_submission

    try:
        store = RunStore.open(run)
    except InputError as exc:
        raise fail(str(exc)) from None
    with store:
        agents = sorted({r.agent for r in store.index.rows()})
        if agent is None:
            if len(agents) > 1:
                raise fail(f"{run}: trajectories of several agents ({', '.join(agents)}); "
                           "choose one with --agent")
            agent = agents[0] if agents else ""
        rows = sorted(store.index.rows(agent=agent),
                      key=lambda r: (r.task_id, r.error is not None, r.trial))
        if not rows:
            raise fail(f"{run}: no trajectory of agent {agent!r}")
        errors: list[str] = []

        def items():  # type: ignore[no-untyped-def]
            for row in rows:
                try:
                    traj = store.load_trajectory(row.trajectory_id)
                except InputError as exc:
                    errors.append(f"{row.trajectory_id}: {exc}")
                    continue
                yield traj, store.trajectory_dir(row.trajectory_id)

        result = write_submission(items(), out, dict(store.info.site_urls))
    for e in errors:
        err_console.print(f"[yellow]skipped corrupt trajectory:[/] {esc(e)}", highlight=False)
    for tid, why in result.skipped:
        err_console.print(f"[yellow]task {esc(tid)}:[/] {esc(why)}", highlight=False)
    console.print(f"wrote {len(result.written)} task folder(s) to {esc(out)} "
                  f"({result.dropped_entries} static-asset HAR entries trimmed)",
                  highlight=False)


def eval_logs(
    dataset: Path = typer.Option(None, "--dataset", help="WebArena-Verified tasks JSON (a "
                                 "list); default: the installed webarena-verified package's."),
    logs: Path = typer.Option(..., "--logs", help="Folder of <task_id>/network.har and "
                              "<task_id>/agent_response.json."),
    site_urls: Path = typer.Option(None, "--site-urls", help="JSON mapping sites or "
                                   "placeholders (\"shopping\" or \"__SHOPPING__\") to base "
                                   "URLs; default: LOGS/site_urls.json (written by `webtraj "
                                   "export webarena-verified`)."),
    task_ids: list[str] = typer.Option(None, "--task-ids", help="Only these task ids "
                                       "(repeat or comma-separate); default: every log folder."),
    out: Path = typer.Option(None, "--out", help="Results JSONL, one line per task (default: "
                             "none, the table only)."),
) -> None:
    """Score WebArena-Verified agent logs with the tasks' own evaluators.

    Each output line is {"task_id", "score", "status", "evaluators": [{"name", "score",
    "status", "assertions"}]}; a task that cannot be evaluated gets status "error" and no
    score, and the batch goes on.

    Example: webtraj eval webarena-verified --logs submission --out results.jsonl
    """
    from webtraj.formats.local_files import LocalFiles
    from webtraj.suites.webarena_verified.evaluate import SiteUrls, TaskVerdict, evaluate_log_dir

    if dataset is not None:
        data = _read_json(dataset, "the dataset")
        if not isinstance(data, list):
            raise fail(f"{dataset}: expected a JSON list of tasks")
        source = str(dataset)
    else:
        from webtraj.suites.webarena_verified.logs import package_dataset_path, package_raw_tasks

        try:
            data = package_raw_tasks("full")
            source = (f"the installed webarena-verified package's dataset "
                      f"({package_dataset_path()})")
        except InputError as exc:
            raise fail(f"{exc} (or give --dataset)") from None
    tasks = {str(t.get("task_id")): t for t in data if isinstance(t, dict)}
    if site_urls is None:
        site_urls = logs / "site_urls.json"
        if not site_urls.is_file():
            raise fail(f"{logs}: no site_urls.json in it; give --site-urls FILE")
    try:
        urls = SiteUrls.from_obj(_read_json(site_urls, "the site URL map"), file=str(site_urls))
    except InputError as exc:
        raise fail(str(exc)) from None
    if not logs.is_dir():
        raise fail(f"{logs}: not a folder")
    wanted = _task_ids(task_ids)
    if wanted is None:
        wanted = sorted((p.name for p in logs.iterdir() if p.is_dir()),
                        key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s))
        if not wanted:
            raise fail(f"{logs}: no task log folders (<task_id>/network.har, "
                       "agent_response.json) in it")
    err_console.print(f"tasks from {esc(source)}", highlight=False)
    # Logs are read only inside --logs: a task folder or file that links out is an error.
    files = LocalFiles([logs])
    counts = {"success": 0, "failure": 0, "error": 0}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp") if out is not None else Path(os.devnull)
    with tmp.open("wb") as fh, Progress(
        TextColumn("[bold]webarena-verified"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err_console, transient=True,
    ) as progress:
        bar = progress.add_task("eval", total=len(wanted))
        for tid in wanted:
            task = tasks.get(tid)
            if task is None:
                verdict = TaskVerdict.failed(tid, f"no task with id {tid} in {source}")
            else:
                try:
                    verdict = evaluate_log_dir(task, logs / tid, site_urls=urls, files=files)
                except Exception as exc:  # noqa: BLE001 - one bad task never stops the batch
                    verdict = TaskVerdict.failed(tid, f"unexpected {type(exc).__name__}: {exc}")
            counts[verdict.status.value] = counts.get(verdict.status.value, 0) + 1
            if verdict.error:
                err_console.print(f"[yellow]task {esc(tid)}:[/] {esc(verdict.error)}",
                                  highlight=False)
            fh.write(orjson.dumps(verdict.to_line()) + b"\n")
            progress.advance(bar)
    if out is not None:
        tmp.replace(out)
    table = Table(title=f"WebArena-Verified: {len(wanted)} task(s)")
    for col in ("tasks", "success", "failure", "error", "success rate (Wilson 95%)"):
        table.add_column(col, justify="right")
    scored = counts["success"] + counts["failure"]
    from webtraj.report.metrics import ci_text

    rate = (f"{counts['success'] / scored:.3f}{ci_text(counts['success'] / scored, scored)}"
            if scored else "-")
    table.add_row(str(len(wanted)), str(counts["success"]), str(counts["failure"]),
                  str(counts["error"]), rate)
    console.print(table)
    if out is not None:
        console.print(f"wrote {esc(out)}", highlight=False)
