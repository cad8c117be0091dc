"""`webtraj import ...`: other tools' trajectories into a webtraj run.

Every importer goes on past a bad record (a file, a history entry, a task folder, a
Mind2Web step): the problem is printed with its file, record and field, counted, and the
rest is imported. A trajectory already in the run is skipped unless --replace."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import typer
from rich.table import Table

from webtraj.cli.common import command_line, console, err_console, esc, fail, print_json
from webtraj.formats.imported import Imported, ImportLog, WrongFormat
from webtraj.formats.local_files import LocalFiles
from webtraj.model import InputError, RunInfo
from webtraj.store.run_store import DuplicateTrajectoryError, RunStore

app = typer.Typer(help="Import other tools' trajectories into a run.\n\nExample: webtraj "
                  "import browser-use history.json --out runs/bu", no_args_is_help=True)

_SHOWN_PROBLEMS = 20
_OUT_HELP = "Run directory to write into (created if missing, else added to)."
_REPLACE_HELP = "Overwrite trajectories already in the run (default: skip them)."
_JSON_HELP = "Print the summary as JSON."


class _Session:
    """Writes imported trajectories into the run and keeps the counts for the summary.
    The run is opened (or created) with the first trajectory: an import that finds nothing
    to import leaves nothing behind."""

    def __init__(self, out: Path, source: str, *, replace: bool,
                 site_urls: dict[str, str] | None = None) -> None:
        self.out = out
        self._store: RunStore | None = None
        self.source = source
        self.site_urls = site_urls
        self.replace = replace
        self.log = ImportLog()
        self.imported = 0
        self.steps = 0
        self.unmapped = 0
        self.existing = 0
        if (out / "run.json").exists():  # an unreadable or other run is refused before
            try:                            # any work (read only: the run stays as it is)
                self._check_source(RunInfo.load(out / "run.json"))
            except InputError as exc:
                raise fail(str(exc)) from None

    @staticmethod
    def _open(out: Path, source: str) -> RunStore:
        """The run, locked for writing (one writer per run); a run made by something else
        than this import's source is refused (one run, one source)."""
        try:
            store = RunStore.open_or_create(
                out, RunInfo(name=out.name, command=command_line(), source=source))
        except InputError as exc:
            raise fail(str(exc)) from None
        try:
            _Session._check_source_of(out, source, store.info)
        except InputError as exc:
            store.close()
            raise fail(str(exc)) from None
        return store

    def _check_source(self, info: RunInfo) -> None:
        self._check_source_of(self.out, self.source, info)

    @staticmethod
    def _check_source_of(out: Path, source: str, info: RunInfo) -> None:
        if info.source != source:
            made_by = (f"an import from {info.source}" if info.source
                       else f"`{info.command or 'webtraj run'}`")
            raise InputError(f"this import from {source} would write into a run made by "
                             f"{made_by}; import into another --out (one run, one source)",
                             file=out)

    @property
    def store(self) -> RunStore:
        if self._store is None:
            self._store = self._open(self.out, self.source)
            if self.site_urls is not None:
                self._store.update_info(site_urls=self.site_urls)
        return self._store

    def add(self, item: Imported) -> None:
        traj = item.trajectory
        try:
            self.store.add_trajectory(traj, item.artifacts, replace=self.replace)
        except DuplicateTrajectoryError:
            self.existing += 1
            return
        except (OSError, ValueError) as exc:
            self.log.error(f"cannot store: {exc}", record=traj.trajectory_id)
            return
        self.imported += 1
        self.steps += len(traj.steps)
        self.unmapped += sum(1 for s in traj.steps if s.action is None)

    def add_all(self, items: Iterable[Imported]) -> None:
        for item in items:
            self.add(item)

    def finish(self, as_json: bool, source_path: object = None) -> None:
        from webtraj.report.html import write_report

        if self.imported:
            write_report(self.store)  # imported runs get their report like any other
        if self._store is not None:
            self._store.close()
        if not (self.imported or self.existing or self.log.errors):
            self.log.warn("nothing to import: no records found", file=str(source_path)
                          if source_path is not None else None)
        summary = {
            "source": self.source, "run": str(self.out), "imported": self.imported,
            "steps": self.steps, "steps_without_action": self.unmapped,
            "already_in_run": self.existing, "errors": len(self.log.errors),
            "warnings": len(self.log.warnings),
            "problems": [{"level": level, **e.to_dict()}
                         for level, items in (("error", self.log.errors),
                                              ("warning", self.log.warnings))
                         for e in items],
        }
        if as_json:
            print_json(summary)
        else:
            problems = [("error", e) for e in self.log.errors] + \
                [("warning", e) for e in self.log.warnings]
            for level, exc in problems[:_SHOWN_PROBLEMS]:
                color = "red" if level == "error" else "yellow"
                err_console.print(f"[{color}]{level}:[/] {esc(exc)}", highlight=False)
            if len(problems) > _SHOWN_PROBLEMS:
                err_console.print(f"... and {len(problems) - _SHOWN_PROBLEMS} more "
                                  "(--json lists them all)")
            table = Table(title=esc(f"import {self.source} -> {self.out}"))
            for col in ("imported", "steps", "steps without action", "already in run",
                        "errors (skipped)", "warnings"):
                table.add_column(col, justify="right")
            table.add_row(str(self.imported), str(self.steps), str(self.unmapped),
                          str(self.existing), str(len(self.log.errors)),
                          str(len(self.log.warnings)))
            console.print(table)
        if self.imported or self.existing:
            return
        if self.log.errors and all(isinstance(e, WrongFormat) for e in self.log.errors):
            raise typer.Exit(2)  # every input was of another format: the user's mistake
        if not as_json:
            err_console.print(f"nothing imported: {self.out} was not created or changed",
                              highlight=False)
        raise typer.Exit(1)


@app.command("browser-use")
def browser_use(
    files: list[Path] = typer.Argument(..., help="History JSON files (agent.history."
                                       "save_to_file); screenshot_path files are looked up "
                                       "next to them."),
    out: Path = typer.Option(..., "--out", help=_OUT_HELP),
    task: str = typer.Option(None, "--task", help="Task text (the files do not hold it; "
                             "default: the <user_request> of a step's state_message)."),
    task_id: str = typer.Option(None, "--task-id", help="Task id (default: the file name, "
                                "or its folder for history.json); repeats become trials."),
    agent: str = typer.Option("browser-use", "--agent", help="Agent name to record."),
    files_from: list[Path] = typer.Option(None, "--files-from", help="Another folder "
                                          "screenshots may be read from (repeatable); by "
                                          "default only each history file's own folder."),
    replace: bool = typer.Option(False, "--replace", help=_REPLACE_HELP),
    as_json: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Import browser-use agent histories, one trajectory per file.

    Example: webtraj import browser-use history.json --task "Find a hotel" --out runs/bu
    """
    from webtraj.formats.browser_use import default_task_id, load_history

    session = _Session(out, "browser-use", replace=replace)
    trials: dict[str, int] = {}
    for path in files:
        tid = task_id or default_task_id(path)
        trial = trials.get(tid, 0)
        trials[tid] = trial + 1
        allowed = LocalFiles([path.parent, *(files_from or ())])
        try:
            item = load_history(path, log=session.log, task=task, task_id=tid, agent=agent,
                                trial=trial, files=allowed)
        except InputError as exc:
            session.log.errors.append(exc)
            continue
        except ValueError as exc:  # a value the model refuses, caught so the batch goes on
            session.log.error(str(exc).splitlines()[0], file=path)
            continue
        session.add(item)
    session.finish(as_json, ", ".join(str(f) for f in files))


@app.command("webvoyager")
def webvoyager(
    results: Path = typer.Argument(..., help="WebVoyager results folder (task<id>/ folders "
                                   "with interact_messages.json and screenshot<k>.png)."),
    tasks: Path = typer.Option(None, "--tasks", help="WebVoyager tasks JSONL ({web_name, id, "
                               "ques, web}); default: the task from the first message."),
    out: Path = typer.Option(..., "--out", help=_OUT_HELP),
    agent: str = typer.Option("webvoyager", "--agent", help="Agent name to record."),
    replace: bool = typer.Option(False, "--replace", help=_REPLACE_HELP),
    as_json: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Import WebVoyager result folders, one trajectory per task folder.

    Example: webtraj import webvoyager results/20240101_10_00_00 --tasks tasks.jsonl --out runs/wv
    """
    from webtraj.formats.webvoyager import iter_results, load_tasks_jsonl, task_folders

    try:
        task_folders(results)
    except InputError as exc:
        raise fail(str(exc)) from None
    session = _Session(out, "webvoyager", replace=replace)
    task_map = None
    if tasks is not None:
        try:
            task_map = load_tasks_jsonl(tasks, session.log)
        except InputError as exc:
            raise fail(str(exc)) from None
    session.add_all(iter_results(results, log=session.log, tasks=task_map, agent=agent))
    session.finish(as_json, results)


@app.command("mind2web")
def mind2web(
    data: str = typer.Argument(..., help="Mind2Web data: a raw task JSON, flattened JSONL or "
                               "parquet file, a folder of them, or hub:SPLIT."),
    out: Path = typer.Option(..., "--out", help=_OUT_HELP),
    limit: int = typer.Option(None, "--limit", min=1, help="Import at most N tasks."),
    html: bool = typer.Option(False, "--html/--no-html", help="Keep each step's cleaned HTML "
                              "as the observation (large)."),
    screenshots: bool = typer.Option(False, "--screenshots", help="Store the screenshots of "
                                     "Multimodal-Mind2Web parquet rows as step-NNN.png."),
    replace: bool = typer.Option(False, "--replace", help=_REPLACE_HELP),
    as_json: bool = typer.Option(False, "--json", help=_JSON_HELP),
) -> None:
    """Import Mind2Web tasks as reference trajectories (agent mind2web-reference).

    Example: webtraj import mind2web data/test_task --limit 20 --out runs/m2w-ref
    """
    from webtraj.formats.mind2web_reference import iter_reference

    if not data.startswith("hub:") and not Path(data).exists():
        raise fail(f"{data}: no such file or folder")
    session = _Session(out, "mind2web", replace=replace)
    session.add_all(iter_reference(data, log=session.log, html=html, limit=limit,
                                   screenshots=screenshots))
    session.finish(as_json, data)
