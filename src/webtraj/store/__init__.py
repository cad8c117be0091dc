"""Store layer: run directories, their SQLite index and atomic writes."""

from webtraj.store.run_store import (
    CorruptTrajectory,
    DuplicateTrajectoryError,
    RunExistsError,
    RunStore,
    find_runs,
)

__all__ = ["CorruptTrajectory", "DuplicateTrajectoryError", "RunExistsError", "RunStore",
           "find_runs"]
