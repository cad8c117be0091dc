"""Subprocess for the scratch test: owns a scratch folder, journals one step whose URL holds
a token (as an episode does), says where, then waits to be killed."""

import sys
import time
from pathlib import Path

from webtraj.execute.episode import StepJournal
from webtraj.execute.scratch import OwnedScratch
from webtraj.model import Action, ActionKind, Observation, Step


def main(parent: str, token: str) -> None:
    scratch = OwnedScratch(parent=Path(parent)).make()
    workdir = scratch / "episode"
    workdir.mkdir()
    StepJournal(workdir).append(Step(
        index=0, observation=Observation(url=f"http://127.0.0.1:9/app?access_token={token}",
                                         axtree="[1] [button] [Go]"),
        action=Action(kind=ActionKind.CLICK, element_id="1")))
    print(scratch, flush=True)
    time.sleep(600)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
