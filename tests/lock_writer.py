"""Subprocess for the run-lock tests: opens a run for writing and stores one trajectory whose
second artifact is read from a FIFO, so the test decides when the write may finish (the
trajectory's temporary folder exists, with its first artifact, until then)."""

import sys
from pathlib import Path

from factories import make_trajectory
from webtraj.model import RunInfo
from webtraj.store import RunStore


def main(root: str, fifo: str) -> None:
    with RunStore.open_or_create(Path(root), RunInfo(name="locked",
                                                     command="lock_writer.py")) as store:
        print("locked", flush=True)
        store.add_trajectory(make_trajectory("t-live"), {
            "step-000.png": b"first artifact",
            "step-001.png": Path(fifo),  # blocks until the test writes into the FIFO
        })
        print("stored", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
