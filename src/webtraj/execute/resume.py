"""Resume is only resume: a command that writes episodes into an existing run must define
the same run (`RunDefinition`); otherwise it is refused with the differences listed, or, when
asked for a new run (`--new`), the old run is set aside under another name and a new one
starts. A new run stays staged (no run.json) until its first episode (`RunStore.publish`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from webtraj.model import InputError, RunInfo
from webtraj.model.run import RunDefinition
from webtraj.store import RunStore


class RunSettingsError(InputError):
    """The run at --out was made with other settings than this command's."""

    def __init__(self, root: Path, differences: list[str], what: str) -> None:
        self.differences = differences
        lines = "\n  ".join(differences)
        super().__init__(
            f"{what} would write into a run made with other settings:\n  {lines}\n"
            "Give the run's own settings to resume it, --out another folder, or --new to "
            "start a new run here (the old one is kept beside it, renamed)", file=root)


def tasks_digest(path: str | Path | None) -> str | None:
    """sha256 of a tasks file's bytes (None when unreadable: loading it says why)."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def open_run_for(out: Path, info: RunInfo, definition: RunDefinition, *, new: bool = False,
                 command: str = "", on_set_aside=None) -> RunStore:
    """The run at `out` locked for writing: a new, staged one, or the existing one when it
    has this definition. `new`: an existing run with another definition is renamed to
    `<out>.replaced-<run id>` (reported through `on_set_aside`) and a new run starts."""
    info = info.model_copy(update={"definition": definition})
    store = RunStore.open_or_create(out, info, command=command, staged=True)
    if store.staged:
        return store
    recorded = store.info.recorded_definition()
    if recorded is None:
        made_by = (f"an import from {store.info.source}" if store.info.source
                   else store.info.command or "another command")
        diffs = [f"the run was made by {made_by}, not by `webtraj {definition.kind}`"]
    else:
        diffs = recorded.differences(definition)
    if not diffs:
        return store
    if not new:
        store.close()
        raise RunSettingsError(out, diffs, f"webtraj {definition.kind}")
    aside = _aside_name(out, store.info.run_id)
    out.rename(aside)  # still locked by us under its new name until the new run is
    try:
        fresh = RunStore.create(out, info, command=command, staged=True)
    finally:
        store.close()
    if on_set_aside is not None:
        on_set_aside(aside)
    return fresh


def _aside_name(out: Path, run_id: str) -> Path:
    aside = out.with_name(f"{out.name}.replaced-{run_id}")
    n = 1
    while aside.exists():
        n += 1
        aside = out.with_name(f"{out.name}.replaced-{run_id}-{n}")
    return aside


def record_served_date(store: RunStore) -> None:
    """A new run's definition takes the sandbox date it serves (the command may have named
    none): a later command naming another date is then another run."""
    definition = store.info.definition
    if store.staged and definition is not None and store.info.sandbox is not None:
        store.update_info(definition=definition.model_copy(
            update={"today": store.info.sandbox.today.isoformat()}))
